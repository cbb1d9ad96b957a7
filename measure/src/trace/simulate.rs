//! `simulate`: a 2-D Lennard-Jones particle simulation (velocity Verlet,
//! cell lists rebuilt every step, reflecting walls). The particles start as
//! a dense hot block in the middle of a large box and expand into it, so the
//! number of interacting pairs — and with it the cost per step — changes
//! over the run. Floating point, with indexed (gather) memory access.

use super::counters::{CounterDef, Probe, Rng};
use super::Workload;

const N: usize = 6000;
const BOX: f64 = 180.0;
const CUTOFF: f64 = 2.5;
const DT: f64 = 0.004;
const SPACING: f64 = 1.12;
const TEMPERATURE: f64 = 1.5;

// Indices into COUNTERS (same order).
const C_INTEGRATED: usize = 0;
const C_BINNED: usize = 1;
const C_CELLS: usize = 2;
const C_INTERACTIONS: usize = 3;
const C_PAIRS: usize = 4;
const C_REJECTED: usize = 5;

const COUNTERS: &[CounterDef] = &[
    CounterDef {
        name: "integrated",
        level: 1,
        description: "particle updates (integrate)",
    },
    CounterDef {
        name: "binned",
        level: 1,
        description: "particles placed in cells (build_cells)",
    },
    CounterDef {
        name: "cell_pairs",
        level: 2,
        description: "neighbouring cell pairs visited (forces)",
    },
    CounterDef {
        name: "interactions",
        level: 2,
        description: "pairs within the cutoff, forces computed (pair_force)",
    },
    CounterDef {
        name: "distance_tests",
        level: 2,
        description: "candidate pairs whose distance was tested (forces inner loop)",
    },
    CounterDef {
        name: "rejected",
        level: 3,
        description: "candidate pairs beyond the cutoff (forces inner loop), atomic",
    },
];

#[derive(Clone)]
struct State {
    x: Vec<f64>,
    y: Vec<f64>,
    vx: Vec<f64>,
    vy: Vec<f64>,
    fx: Vec<f64>,
    fy: Vec<f64>,
}

struct Cells {
    n: usize,
    size: f64,
    start: Vec<u32>,
    items: Vec<u32>,
    of: Vec<u32>,
}

impl Cells {
    fn new() -> Self {
        let n = (BOX / CUTOFF).floor() as usize;
        Cells {
            n,
            size: BOX / n as f64,
            start: vec![0; n * n + 1],
            items: vec![0; N],
            of: vec![0; N],
        }
    }

    /// Counting sort of the particles by cell.
    #[inline(never)]
    fn build<const L: u32>(&mut self, s: &State, probe: &Probe) {
        self.start.iter_mut().for_each(|c| *c = 0);
        let n = self.n;
        for i in 0..N {
            probe.count::<L>(1, C_BINNED);
            let cx = ((s.x[i] / self.size) as usize).min(n - 1);
            let cy = ((s.y[i] / self.size) as usize).min(n - 1);
            let c = cy * n + cx;
            self.of[i] = c as u32;
            self.start[c + 1] += 1;
        }
        for c in 0..n * n {
            self.start[c + 1] += self.start[c];
        }
        let mut fill = self.start.clone();
        for i in 0..N {
            let c = self.of[i] as usize;
            self.items[fill[c] as usize] = i as u32;
            fill[c] += 1;
        }
    }
}

/// Lennard-Jones force / r for squared distance `r2` (σ = ε = 1), and the
/// potential energy, both zero beyond the cutoff.
#[inline(never)]
fn pair_force<const L: u32>(r2: f64, probe: &Probe) -> (f64, f64) {
    probe.count::<L>(2, C_INTERACTIONS);
    let inv2 = 1.0 / r2;
    let inv6 = inv2 * inv2 * inv2;
    (
        24.0 * inv6 * (2.0 * inv6 - 1.0) * inv2,
        4.0 * inv6 * (inv6 - 1.0),
    )
}

/// Forces over each cell and its 4 "forward" neighbours (each pair once).
/// Returns the potential energy.
#[inline(never)]
fn forces<const L: u32>(s: &mut State, cells: &Cells, probe: &Probe) -> f64 {
    s.fx.iter_mut().for_each(|f| *f = 0.0);
    s.fy.iter_mut().for_each(|f| *f = 0.0);
    let n = cells.n as isize;
    let rc2 = CUTOFF * CUTOFF;
    let mut energy = 0.0;
    for cy in 0..n {
        for cx in 0..n {
            let a = (cy * n + cx) as usize;
            let (a0, a1) = (cells.start[a] as usize, cells.start[a + 1] as usize);
            if a0 == a1 {
                continue;
            }
            for (dx, dy) in [(0isize, 0isize), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                let (nx, ny) = (cx + dx, cy + dy);
                if nx < 0 || nx >= n || ny >= n {
                    continue;
                }
                probe.count::<L>(2, C_CELLS);
                let b = (ny * n + nx) as usize;
                let (b0, b1) = (cells.start[b] as usize, cells.start[b + 1] as usize);
                for ia in a0..a1 {
                    let i = cells.items[ia] as usize;
                    let from = if a == b { ia + 1 } else { b0 };
                    for jb in from..b1 {
                        probe.count::<L>(2, C_PAIRS);
                        let j = cells.items[jb] as usize;
                        let ddx = s.x[i] - s.x[j];
                        let ddy = s.y[i] - s.y[j];
                        let r2 = ddx * ddx + ddy * ddy;
                        if r2 < rc2 {
                            let (f, e) = pair_force::<L>(r2.max(0.5), probe);
                            energy += e;
                            s.fx[i] += f * ddx;
                            s.fy[i] += f * ddy;
                            s.fx[j] -= f * ddx;
                            s.fy[j] -= f * ddy;
                        } else {
                            probe.count::<L>(3, C_REJECTED);
                        }
                    }
                }
            }
        }
    }
    energy
}

/// Velocity Verlet, first half (kick + drift, walls reflect) or second half
/// (kick). Returns the kinetic energy after the second half.
#[inline(never)]
fn integrate<const L: u32>(s: &mut State, first_half: bool, probe: &Probe) -> f64 {
    let h = 0.5 * DT;
    let mut kinetic = 0.0;
    for i in 0..N {
        probe.count::<L>(1, C_INTEGRATED);
        s.vx[i] += h * s.fx[i];
        s.vy[i] += h * s.fy[i];
        if first_half {
            s.x[i] += DT * s.vx[i];
            s.y[i] += DT * s.vy[i];
            if s.x[i] < 0.0 || s.x[i] >= BOX {
                s.vx[i] = -s.vx[i];
                s.x[i] = s.x[i].clamp(0.0, BOX - 1e-9);
            }
            if s.y[i] < 0.0 || s.y[i] >= BOX {
                s.vy[i] = -s.vy[i];
                s.y[i] = s.y[i].clamp(0.0, BOX - 1e-9);
            }
        } else {
            kinetic += 0.5 * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i]);
        }
    }
    kinetic
}

pub struct Simulate {
    initial: State,
}

impl Simulate {
    /// A square block of particles at the lattice spacing near the LJ
    /// minimum, centred in the box, with random velocities (zero mean).
    pub fn new() -> Self {
        let mut rng = Rng(0x51D0_0001);
        let side = (N as f64).sqrt().ceil() as usize;
        let origin = 0.5 * (BOX - side as f64 * SPACING);
        let mut s = State {
            x: Vec::with_capacity(N),
            y: Vec::with_capacity(N),
            vx: Vec::with_capacity(N),
            vy: Vec::with_capacity(N),
            fx: vec![0.0; N],
            fy: vec![0.0; N],
        };
        for i in 0..N {
            s.x.push(origin + (i % side) as f64 * SPACING);
            s.y.push(origin + (i / side) as f64 * SPACING);
            let sd = TEMPERATURE.sqrt();
            s.vx.push(sd * (2.0 * rng.unit() - 1.0) * 3f64.sqrt());
            s.vy.push(sd * (2.0 * rng.unit() - 1.0) * 3f64.sqrt());
        }
        let (mx, my) = (
            s.vx.iter().sum::<f64>() / N as f64,
            s.vy.iter().sum::<f64>() / N as f64,
        );
        s.vx.iter_mut().for_each(|v| *v -= mx);
        s.vy.iter_mut().for_each(|v| *v -= my);
        Simulate { initial: s }
    }

    fn run_l<const L: u32>(&self, work: u64, probe: &Probe) -> (u64, f64) {
        let mut s = self.initial.clone();
        let mut cells = Cells::new();
        cells.build::<L>(&s, probe);
        let mut potential = forces::<L>(&mut s, &cells, probe);
        let mut kinetic = 0.0;
        for step in 0..work {
            if probe.stopped() {
                break;
            }
            integrate::<L>(&mut s, true, probe);
            cells.build::<L>(&s, probe);
            potential = forces::<L>(&mut s, &cells, probe);
            kinetic = integrate::<L>(&mut s, false, probe);
            probe.set_progress((step + 1) * N as u64);
        }
        let e = potential + kinetic;
        (e.to_bits() ^ s.x[0].to_bits(), e / N as f64)
    }
}

impl Workload for Simulate {
    fn name(&self) -> &'static str {
        "simulate"
    }
    fn description(&self) -> String {
        format!(
            "2-D Lennard-Jones simulation of {N} particles (velocity Verlet, dt = {DT}, cutoff {CUTOFF}, cell lists rebuilt each step) expanding from a dense block into a {BOX}×{BOX} box with reflecting walls"
        )
    }
    fn progress_unit(&self) -> &'static str {
        "particle updates"
    }
    fn work_unit(&self) -> &'static str {
        "time steps"
    }
    fn counters(&self) -> &'static [CounterDef] {
        COUNTERS
    }
    fn level_description(&self, level: u32) -> &'static str {
        match level {
            0 => "uninstrumented",
            1 => "particles integrated and binned into cells",
            2 => "+ neighbouring cell pairs visited, every candidate pair's distance test, forces computed",
            _ => "+ candidate pairs beyond the cutoff, counted with an atomic read-modify-write",
        }
    }
    fn interval_ms(&self, quick: bool) -> f64 {
        // The expansion unfolds over seconds; a step takes about a ms.
        if quick {
            10.0
        } else {
            25.0
        }
    }
    fn run(&self, level: u32, work: u64, probe: &Probe) -> u64 {
        match level {
            0 => self.run_l::<0>(work, probe).0,
            1 => self.run_l::<1>(work, probe).0,
            2 => self.run_l::<2>(work, probe).0,
            _ => self.run_l::<3>(work, probe).0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn energy_is_roughly_conserved_and_levels_agree() {
        let sim = Simulate::new();
        let p0 = Probe::default();
        let (_, e0) = sim.run_l::<0>(1, &p0);
        let (_, e1) = sim.run_l::<0>(200, &p0);
        // Velocity Verlet with a truncated potential drifts a little.
        assert!((e1 - e0).abs() < 0.05 * e0.abs().max(1.0), "{e0} → {e1}");
        let p3 = Probe::default();
        assert_eq!(sim.run(0, 20, &Probe::default()), sim.run(3, 20, &p3));
        assert_eq!(p3.counter(C_INTEGRATED), 2 * 20 * N as u64);
        assert!(p3.counter(C_PAIRS) > p3.counter(C_INTERACTIONS));
    }
}
