//! The Campaign: the files as executions on several machines
//! (`report::campaign`).

use super::{Across, Needs};
use crate::options::Options;
use crate::report::campaign::CampaignReport;
use crate::report::kept::{campaign_kept, KeptFile};
use serde::Deserialize;

pub struct Campaign;

/// Nothing to set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CampaignParams {}

impl Across for Campaign {
    const NAME: &'static str = "campaign";
    const TITLE: &'static str = "Campaign";
    const NEEDS: Needs = Needs::All { min: 3 };
    const COST: u8 = 2;
    type Params = CampaignParams;
    type Report = CampaignReport;

    fn compute(
        files: &[&KeptFile],
        opts: &Options,
        _: &CampaignParams,
    ) -> Result<CampaignReport, String> {
        Ok(campaign_kept(files, opts))
    }
}
