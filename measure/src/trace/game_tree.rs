//! `game_tree`: alpha-beta negamax on Connect Four (bitboards, a
//! transposition table of 2^20 entries, centre-first move ordering) to a
//! fixed depth, over positions taken from generated games. Branchy,
//! recursive, with scattered table accesses; early positions search many
//! more nodes than late ones, so the trace has phases.

use super::counters::{CounterDef, Probe, Rng};
use super::Workload;

const W: u32 = 7;
const H: u32 = 6;
/// Search depth in plies per position.
const DEPTH: u32 = 9;
const TT_BITS: u32 = 20;
const ORDER: [u32; 7] = [3, 2, 4, 1, 5, 0, 6];
const WIN: i32 = 1000;

const C_NODES: usize = 0;
const C_LEAVES: usize = 1;
const C_MOVES: usize = 2;
const C_TT: usize = 3;
const C_CUTOFFS: usize = 4;
const C_TERMS: usize = 5;
const C_WINCHECKS: usize = 6;

const COUNTERS: &[CounterDef] = &[
    CounterDef {
        name: "nodes",
        level: 1,
        description: "nodes entered (negamax)",
    },
    CounterDef {
        name: "leaves",
        level: 1,
        description: "positions evaluated at the depth limit (evaluate)",
    },
    CounterDef {
        name: "moves",
        level: 2,
        description: "moves generated and tried (negamax move loop)",
    },
    CounterDef {
        name: "tt_probes",
        level: 2,
        description: "transposition-table probes (tt_probe)",
    },
    CounterDef {
        name: "cutoffs",
        level: 2,
        description: "beta cutoffs (negamax)",
    },
    CounterDef {
        name: "eval_terms",
        level: 2,
        description: "threat-direction terms computed per side (evaluate)",
    },
    CounterDef {
        name: "win_checks",
        level: 3,
        description: "immediate-win checks, one per playable column (negamax), atomic",
    },
];

#[derive(Clone, Copy)]
struct Pos {
    /// Stones of the side to move.
    cur: u64,
    /// All stones.
    mask: u64,
    moves: u32,
}

#[inline(always)]
fn bottom(col: u32) -> u64 {
    1 << (col * (H + 1))
}
#[inline(always)]
fn top(col: u32) -> u64 {
    1 << (H - 1 + col * (H + 1))
}
const BOTTOM_ALL: u64 = {
    let mut b = 0u64;
    let mut c = 0;
    while c < W {
        b |= 1 << (c * (H + 1));
        c += 1;
    }
    b
};
const BOARD: u64 = BOTTOM_ALL * ((1 << H) - 1);

impl Pos {
    fn empty() -> Self {
        Pos {
            cur: 0,
            mask: 0,
            moves: 0,
        }
    }
    #[inline(always)]
    fn can_play(&self, col: u32) -> bool {
        self.mask & top(col) == 0
    }
    #[inline(always)]
    fn play(&self, col: u32) -> Pos {
        let mask = self.mask | (self.mask + bottom(col));
        Pos {
            cur: self.cur ^ self.mask,
            mask,
            moves: self.moves + 1,
        }
    }
    /// Does playing `col` win for the side to move?
    #[inline(always)]
    fn wins(&self, col: u32) -> bool {
        let stone = (self.mask + bottom(col)) & column_mask(col);
        aligned(self.cur | stone)
    }
    fn key(&self) -> u64 {
        self.cur + self.mask
    }
}

#[inline(always)]
fn column_mask(col: u32) -> u64 {
    ((1 << H) - 1) << (col * (H + 1))
}

/// Four in a row anywhere in `p`.
#[inline(always)]
fn aligned(p: u64) -> bool {
    for s in [1u32, H, H + 1, H + 2] {
        let m = p & (p >> s);
        if m & (m >> (2 * s)) != 0 {
            return true;
        }
    }
    false
}

/// Empty cells that would complete four for the stones `p`, per direction
/// (Pascal Pons' winning-position bit trick).
#[inline(always)]
fn threats(p: u64, mask: u64, dir: u32) -> u64 {
    let s = [1u32, H, H + 1, H + 2][dir as usize];
    let mut r = 0u64;
    if s == 1 {
        // vertical
        return (p << 1) & (p << 2) & (p << 3) & !mask & BOARD;
    }
    let mut t = (p << s) & (p << (2 * s));
    r |= t & (p << (3 * s));
    r |= t & (p >> s);
    t = (p >> s) & (p >> (2 * s));
    r |= t & (p << s);
    r |= t & (p >> (3 * s));
    r & !mask & BOARD
}

/// Static score for the side to move: threats (cells completing four) with
/// weight 4, playable ones (directly above the stack) another 4, plus
/// centre stones.
#[inline(never)]
fn evaluate<const L: u32>(pos: &Pos, probe: &Probe) -> i32 {
    probe.count::<L>(1, C_LEAVES);
    let opp = pos.cur ^ pos.mask;
    let playable = (pos.mask + BOTTOM_ALL) & BOARD;
    let mut score = 0i32;
    for dir in 0..4 {
        probe.count::<L>(2, C_TERMS);
        let mine = threats(pos.cur, pos.mask, dir);
        probe.count::<L>(2, C_TERMS);
        let theirs = threats(opp, pos.mask, dir);
        score += 4 * (mine.count_ones() as i32 - theirs.count_ones() as i32);
        score +=
            4 * ((mine & playable).count_ones() as i32 - (theirs & playable).count_ones() as i32);
    }
    let centre = column_mask(3);
    score + 2 * ((pos.cur & centre).count_ones() as i32 - (opp & centre).count_ones() as i32)
}

/// Transposition table: key (56 bits) | depth (4) | flag (2) in one word,
/// value in another.
struct Tt {
    keys: Vec<u64>,
    vals: Vec<i32>,
}

const EXACT: u64 = 0;
const LOWER: u64 = 1;
const UPPER: u64 = 2;

impl Tt {
    fn new() -> Self {
        Tt {
            keys: vec![0; 1 << TT_BITS],
            vals: vec![0; 1 << TT_BITS],
        }
    }
    #[inline(always)]
    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TT_BITS)) as usize
    }
    #[inline(never)]
    fn probe<const L: u32>(&self, key: u64, probe: &Probe) -> Option<(u32, u64, i32)> {
        probe.count::<L>(2, C_TT);
        let i = Self::slot(key);
        let e = self.keys[i];
        (e != 0 && e >> 8 == key).then(|| (((e >> 2) & 0x3f) as u32, e & 3, self.vals[i]))
    }
    fn store(&mut self, key: u64, depth: u32, flag: u64, v: i32) {
        let i = Self::slot(key);
        self.keys[i] = (key << 8) | (u64::from(depth) << 2) | flag;
        self.vals[i] = v;
    }
}

struct Search<'a> {
    tt: Tt,
    /// Mixed into every key: each position searches with an effectively
    /// empty table (stale entries never match) without clearing 12 MB.
    salt: u64,
    nodes: u64,
    published: u64,
    probe: &'a Probe,
}

impl Search<'_> {
    fn negamax<const L: u32>(&mut self, pos: &Pos, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.probe.count::<L>(1, C_NODES);
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.probe.set_progress(self.published + self.nodes);
        }
        if pos.moves == W * H {
            return 0;
        }
        for col in 0..W {
            if pos.can_play(col) {
                self.probe.count::<L>(3, C_WINCHECKS);
                if pos.wins(col) {
                    return WIN - pos.moves as i32;
                }
            }
        }
        if depth == 0 {
            return evaluate::<L>(pos, self.probe);
        }
        let alpha0 = alpha;
        let key = pos.key() ^ self.salt;
        if let Some((d, flag, v)) = self.tt.probe::<L>(key, self.probe) {
            if d >= depth {
                match flag {
                    EXACT => return v,
                    LOWER if v >= beta => return v,
                    UPPER if v <= alpha => return v,
                    _ => {}
                }
            }
        }
        let mut best = -WIN * 2;
        for col in ORDER {
            if !pos.can_play(col) {
                continue;
            }
            self.probe.count::<L>(2, C_MOVES);
            let v = -self.negamax::<L>(&pos.play(col), depth - 1, -beta, -alpha);
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                self.probe.count::<L>(2, C_CUTOFFS);
                break;
            }
        }
        let flag = if best <= alpha0 {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.tt.store(key, depth, flag, best);
        best
    }
}

pub struct GameTree {
    positions: Vec<Pos>,
}

impl GameTree {
    /// Positions at plies 2…30 of generated games (random moves; a game
    /// stops before a position with an immediate win or at ply 30).
    pub fn new() -> Self {
        let mut rng = Rng(0x6A3E_7EEE);
        let mut positions = Vec::new();
        while positions.len() < 120 {
            let mut p = Pos::empty();
            loop {
                let cols: Vec<u32> = (0..W).filter(|&c| p.can_play(c)).collect();
                if cols.is_empty() || cols.iter().any(|&c| p.wins(c)) || p.moves >= 30 {
                    break;
                }
                if p.moves >= 2 {
                    positions.push(p);
                }
                p = p.play(cols[rng.below(cols.len() as u64) as usize]);
            }
        }
        // Shuffled: the cost of a position depends on the game stage, and a
        // run's first positions should cost what its later ones do (the
        // work is calibrated on a prefix). Neighbours still differ: phases.
        for i in (1..positions.len()).rev() {
            positions.swap(i, rng.below(i as u64 + 1) as usize);
        }
        GameTree { positions }
    }

    fn run_l<const L: u32>(&self, work: u64, probe: &Probe) -> u64 {
        let mut s = Search {
            tt: Tt::new(),
            salt: 0,
            nodes: 0,
            published: 0,
            probe,
        };
        let mut check = 0u64;
        for unit in 0..work {
            if probe.stopped() {
                break;
            }
            let pos = self.positions[(unit % self.positions.len() as u64) as usize];
            s.salt = (unit + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8;
            let v = s.negamax::<L>(&pos, DEPTH, -WIN * 2, WIN * 2);
            check = check.rotate_left(7) ^ (v as u64);
            s.published += s.nodes;
            s.nodes = 0;
            probe.set_progress(s.published);
        }
        check ^ s.published
    }
}

impl Workload for GameTree {
    fn name(&self) -> &'static str {
        "game_tree"
    }
    fn description(&self) -> String {
        format!(
            "Connect Four alpha-beta negamax to depth {DEPTH} (bitboards, transposition table of 2^{TT_BITS} entries, fresh per position, centre-first ordering) over {} positions from generated games, cycling",
            self.positions.len()
        )
    }
    fn progress_unit(&self) -> &'static str {
        "nodes"
    }
    fn work_unit(&self) -> &'static str {
        "positions"
    }
    fn counters(&self) -> &'static [CounterDef] {
        COUNTERS
    }
    fn level_description(&self, level: u32) -> &'static str {
        match level {
            0 => "uninstrumented",
            1 => "nodes entered and leaves evaluated",
            2 => "+ moves tried, transposition-table probes, beta cutoffs, threat terms of the evaluation (8 per leaf)",
            _ => "+ immediate-win checks (one per playable column per node), counted with an atomic read-modify-write",
        }
    }
    fn interval_ms(&self, _quick: bool) -> f64 {
        // One position takes a few ms: 10 ms shows the per-position swings.
        10.0
    }
    fn run(&self, level: u32, work: u64, probe: &Probe) -> u64 {
        match level {
            0 => self.run_l::<0>(work, probe),
            1 => self.run_l::<1>(work, probe),
            2 => self.run_l::<2>(work, probe),
            _ => self.run_l::<3>(work, probe),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_moves(cols: &[u32]) -> Pos {
        cols.iter().fold(Pos::empty(), |p, &c| p.play(c))
    }

    #[test]
    fn finds_an_immediate_win_and_a_forced_block() {
        // X: 0,0,0 in column 0 (O plays column 1): X to move wins at once.
        let p = from_moves(&[0, 1, 0, 1, 0, 1]);
        assert!(p.wins(0));
        let probe = Probe::default();
        let mut s = Search {
            tt: Tt::new(),
            salt: 0,
            nodes: 0,
            published: 0,
            probe: &probe,
        };
        let v = s.negamax::<0>(&p, 3, -2 * WIN, 2 * WIN);
        assert_eq!(v, WIN - 6);
        assert_eq!(probe.total(), 0);
    }

    #[test]
    fn levels_count_without_changing_the_result() {
        let g = GameTree::new();
        let probes: Vec<Probe> = (0..4).map(|_| Probe::default()).collect();
        let checks: Vec<u64> = (0..4).map(|l| g.run(l, 3, &probes[l as usize])).collect();
        assert!(checks.iter().all(|&c| c == checks[0]), "{checks:?}");
        assert_eq!(probes[0].total(), 0);
        assert!(probes[1].total() > 0);
        assert!(probes[2].total() > probes[1].total());
        assert!(probes[3].total() > probes[2].total());
        // Nodes counted at level 1 equal the published progress.
        assert_eq!(probes[1].counter(C_NODES), probes[1].progress());
    }

    #[test]
    fn aligned_detects_each_direction() {
        assert!(aligned(0b1111));
        let horiz = (0..4).map(bottom).fold(0, |a, b| a | b);
        assert!(aligned(horiz));
        assert!(!aligned(horiz & !bottom(3)));
    }
}
