//! PCG32: the stream of rand_pcg's `Pcg32` (`Lcg64Xsh32`: a 64-bit LCG
//! with the XSH RR output), seeded the same way and equal to it output for
//! output (a test holds them together), with one addition rand_pcg does not
//! offer: [`Pcg32::pair`], two consecutive outputs from one step of the
//! LCG's chain. Each output otherwise waits on the multiply-add before it;
//! the impact factor's shuffles draw one index per value (a swap), and that
//! chain was their time natively.

use core::convert::Infallible;
use rand::{SeedableRng, TryRng};

const MULTIPLIER: u64 = 6_364_136_223_846_793_005;

#[derive(Clone, PartialEq, Eq)]
pub struct Pcg32 {
    state: u64,
    increment: u64,
}

impl core::fmt::Debug for Pcg32 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Pcg32 {}")
    }
}

/// XSH RR: the output of the state before a step.
#[inline(always)]
fn output(state: u64) -> u32 {
    let rot = (state >> 59) as u32;
    let xsh = (((state >> 18) ^ state) >> 27) as u32;
    xsh.rotate_right(rot)
}

impl Pcg32 {
    #[inline(always)]
    fn step(&self, state: u64) -> u64 {
        state.wrapping_mul(MULTIPLIER).wrapping_add(self.increment)
    }

    /// The next two outputs, as two `next_u32` calls give them, with the
    /// state after the first (to go on from there when the second is not
    /// wanted): the state two steps on is one multiply-add from this one
    /// (a·a, c·(a + 1)), the second output's state off that chain.
    #[inline(always)]
    pub fn pair(&mut self) -> (u32, u32, Pcg32) {
        let s0 = self.state;
        let s1 = self.step(s0);
        self.state = s0
            .wrapping_mul(MULTIPLIER.wrapping_mul(MULTIPLIER))
            .wrapping_add(self.increment.wrapping_mul(MULTIPLIER.wrapping_add(1)));
        let after_first = Pcg32 {
            state: s1,
            increment: self.increment,
        };
        (output(s0), output(s1), after_first)
    }
}

impl SeedableRng for Pcg32 {
    type Seed = [u8; 16];

    /// As rand_pcg: the first 8 bytes the state, the next 8 the increment
    /// (made odd), then one step away from them.
    fn from_seed(seed: [u8; 16]) -> Self {
        let word = |k: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&seed[8 * k..8 * k + 8]);
            u64::from_le_bytes(b)
        };
        let mut pcg = Pcg32 {
            state: word(0),
            increment: word(1) | 1,
        };
        pcg.state = pcg.step(pcg.state.wrapping_add(pcg.increment));
        pcg
    }
}

impl TryRng for Pcg32 {
    type Error = Infallible;

    #[inline(always)]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let state = self.state;
        self.state = self.step(state);
        Ok(output(state))
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        // As rand_pcg: the first output is the low half.
        let lo = u64::from(self.try_next_u32()?);
        let hi = u64::from(self.try_next_u32()?);
        Ok(hi << 32 | lo)
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dest.chunks_mut(4) {
            let word = self.try_next_u32()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// Output for output, rand_pcg's Pcg32 from the same seeds, whether
    /// drawn one at a time, in pairs, or as u64s and bytes.
    #[test]
    fn it_is_rand_pcgs_pcg32() {
        for seed in [0u64, 1, 0x6e75_6c6c, u64::MAX] {
            let mut theirs = rand_pcg::Pcg32::seed_from_u64(seed);
            let mut ours = Pcg32::seed_from_u64(seed);
            for k in 0..1000 {
                if k % 3 == 0 {
                    let (a, b, after) = ours.pair();
                    assert_eq!(a, theirs.next_u32());
                    let mut rest = after.clone();
                    assert_eq!(rest.next_u32(), b);
                    assert_eq!(rest, ours);
                    assert_eq!(b, theirs.next_u32());
                } else {
                    assert_eq!(ours.next_u32(), theirs.next_u32());
                }
            }
            assert_eq!(ours.next_u64(), theirs.next_u64());
            let (mut a, mut b) = ([0u8; 7], [0u8; 7]);
            ours.fill_bytes(&mut a);
            theirs.fill_bytes(&mut b);
            assert_eq!(a, b);
            assert_eq!(ours.next_u32(), theirs.next_u32());
        }
    }
}
