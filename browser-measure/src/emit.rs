//! The operations and the exact modules that time them, emitted with
//! wasm-encoder: one module per operation, form and length (n or 2n copies).
//!
//! Each module exports one function, `go(count, timed) -> ticks`: `count`
//! passes of the sequence, and when `timed` is not 0, the imported clock
//! read before and after each pass, counting the passes in which it
//! changed (the Bernoulli trials). Untimed, it is the long run, timed from
//! outside. One function, so the long runs and the trials run the same
//! compiled code: two functions are two compilations, which an engine may
//! optimise apart. Operands are loaded from memory at entry and the
//! accumulators stored back at exit, so the engine can neither fold the
//! sequence nor drop it as dead code.

use wasm_encoder::{
    BlockType, CodeSection, ConstExpr, DataSection, ElementSection, Elements, EntityType,
    ExportKind, ExportSection, Function, FunctionSection, ImportSection, Instruction, MemArg,
    MemorySection, MemoryType, Module, RefType, TableSection, TableType, TypeSection, ValType,
};

/// Independent accumulators of the throughput form (copies rotate over them).
pub const LANES: u32 = 8;
/// Memory layout: operands a at 0 and b at 8, the call_indirect table index
/// at 16, the accumulators' sink at 64, the pointer-chase cells at 1024
/// (each holds its own address), the store targets from 2048.
const A_AT: u64 = 0;
const B_AT: u64 = 8;
const INDEX_AT: u64 = 16;
const SINK_AT: u64 = 64;
const CHASE_AT: u64 = 1024;
const STORE_AT: u64 = 2048;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ty {
    I32,
    I64,
    F32,
    F64,
}

impl Ty {
    fn val(self) -> ValType {
        match self {
            Ty::I32 => ValType::I32,
            Ty::I64 => ValType::I64,
            Ty::F32 => ValType::F32,
            Ty::F64 => ValType::F64,
        }
    }

    fn load(self, offset: u64) -> Instruction<'static> {
        match self {
            Ty::I32 => Instruction::I32Load(mem(offset, 2)),
            Ty::I64 => Instruction::I64Load(mem(offset, 3)),
            Ty::F32 => Instruction::F32Load(mem(offset, 2)),
            Ty::F64 => Instruction::F64Load(mem(offset, 3)),
        }
    }

    fn store(self, offset: u64) -> Instruction<'static> {
        match self {
            Ty::I32 => Instruction::I32Store(mem(offset, 2)),
            Ty::I64 => Instruction::I64Store(mem(offset, 3)),
            Ty::F32 => Instruction::F32Store(mem(offset, 2)),
            Ty::F64 => Instruction::F64Store(mem(offset, 3)),
        }
    }

    /// An operand's bytes in its 8-byte slot; `None` for a value of the
    /// wrong kind (a mistake in [`ops`], which the unit test catches).
    fn bytes(self, v: Val) -> Option<[u8; 8]> {
        let mut out = [0u8; 8];
        match (self, v) {
            (Ty::I32, Val::Int(x)) => out[..4].copy_from_slice(&(x as u32).to_le_bytes()),
            (Ty::I64, Val::Int(x)) => out.copy_from_slice(&x.to_le_bytes()),
            (Ty::F32, Val::Float(x)) => out[..4].copy_from_slice(&(x as f32).to_le_bytes()),
            (Ty::F64, Val::Float(x)) => out.copy_from_slice(&x.to_le_bytes()),
            _ => return None,
        }
        Some(out)
    }
}

fn mem(offset: u64, align: u32) -> MemArg {
    MemArg {
        offset,
        align,
        memory_index: 0,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    Int(u64),
    Float(f64),
}

/// What one copy of the sequence does to its accumulator `acc`.
#[derive(Clone, Debug)]
pub enum Kind {
    /// acc = op(acc, b)
    Binary(Instruction<'static>),
    /// acc = op(acc)
    Unary(Instruction<'static>),
    /// acc = second(first(acc)): a conversion and its way back.
    RoundTrip(Instruction<'static>, Instruction<'static>),
    /// acc = i64.load(acc): a pointer chase through cells holding their
    /// own address.
    Load,
    /// i64.store of acc, each copy to its own address.
    Store,
    /// acc = callee(acc), the callee returning its argument.
    Call,
    /// The same call through the table.
    CallIndirect,
}

#[derive(Clone, Debug)]
pub struct OpDef {
    pub name: &'static str,
    pub group: &'static str,
    /// The native `ops` operation of the same work, by form (`None` where
    /// the native suite has no such form).
    pub native_latency: Option<&'static str>,
    pub native_throughput: Option<&'static str>,
    pub ty: Ty,
    pub kind: Kind,
    pub a: Val,
    pub b: Val,
}

impl OpDef {
    pub fn forms(&self) -> &'static [&'static str] {
        match self.kind {
            // A store has nothing to depend on: independent copies only.
            Kind::Store => &["throughput"],
            _ => &["latency", "throughput"],
        }
    }
}

/// Every operation timed. Operands keep each chain at a steady value (×1,
/// ÷1, √ towards 1, rotations), except where the value does not change the
/// cost (shifts to 0, additions growing).
pub fn ops() -> Vec<OpDef> {
    use Instruction as I;
    use Val::{Float as F, Int};
    let big = 0x7edc_ba98_7654_3210u64;
    let bits = 0x0123_4567_89ab_cdefu64;
    let op = |name, group, nl, nt, ty, kind, a, b| OpDef {
        name,
        group,
        native_latency: nl,
        native_throughput: nt,
        ty,
        kind,
        a,
        b,
    };
    let bin = |name, native: &'static str, ty, ins, a, b| {
        let group = if matches!(ty, Ty::F32 | Ty::F64) {
            "float"
        } else {
            "integer"
        };
        op(
            name,
            group,
            Some(native),
            Some(native),
            ty,
            Kind::Binary(ins),
            a,
            b,
        )
    };
    vec![
        bin("i64.add", "add_i64", Ty::I64, I::I64Add, Int(1), Int(1)),
        bin(
            "i64.mul",
            "mul_i64",
            Ty::I64,
            I::I64Mul,
            Int(3),
            Int(0x9e37_79b9_7f4a_7c15),
        ),
        bin(
            "i64.div_u",
            "div_u64",
            Ty::I64,
            I::I64DivU,
            Int(big),
            Int(1),
        ),
        bin(
            "i64.div_s",
            "div_i64",
            Ty::I64,
            I::I64DivS,
            Int(big),
            Int(1),
        ),
        bin(
            "i64.rem_u",
            "rem_u64",
            Ty::I64,
            I::I64RemU,
            Int(big),
            Int(u64::MAX - 14),
        ),
        bin(
            "i64.rem_s",
            "rem_i64",
            Ty::I64,
            I::I64RemS,
            Int(big),
            Int(0x7fff_ffff_ffff_fff1),
        ),
        bin(
            "i64.shl",
            "shl_cl_i64",
            Ty::I64,
            I::I64Shl,
            Int(bits),
            Int(1),
        ),
        bin(
            "i64.rotl",
            "rol_cl_i64",
            Ty::I64,
            I::I64Rotl,
            Int(bits),
            Int(1),
        ),
        op(
            "i64.clz",
            "integer",
            Some("lzcnt_i64"),
            Some("lzcnt_i64"),
            Ty::I64,
            Kind::Unary(I::I64Clz),
            Int(bits),
            Int(0),
        ),
        op(
            "i64.ctz",
            "integer",
            Some("tzcnt_i64"),
            Some("tzcnt_i64"),
            Ty::I64,
            Kind::Unary(I::I64Ctz),
            Int(bits),
            Int(0),
        ),
        op(
            "i64.popcnt",
            "integer",
            Some("popcnt_i64"),
            Some("popcnt_i64"),
            Ty::I64,
            Kind::Unary(I::I64Popcnt),
            Int(bits),
            Int(0),
        ),
        bin("i32.add", "add_i32", Ty::I32, I::I32Add, Int(1), Int(1)),
        bin(
            "i32.mul",
            "mul_i32",
            Ty::I32,
            I::I32Mul,
            Int(3),
            Int(0x9e37_79b9),
        ),
        bin(
            "i32.div_u",
            "div_u32",
            Ty::I32,
            I::I32DivU,
            Int(0x7edc_ba98),
            Int(1),
        ),
        bin("f64.add", "add_f64", Ty::F64, I::F64Add, F(1.0), F(1.0)),
        bin("f64.mul", "mul_f64", Ty::F64, I::F64Mul, F(1.5), F(1.0)),
        bin("f64.div", "div_f64", Ty::F64, I::F64Div, F(1.5), F(1.0)),
        bin("f64.min", "min_f64", Ty::F64, I::F64Min, F(1.5), F(2.0)),
        bin("f64.max", "max_f64", Ty::F64, I::F64Max, F(1.5), F(1.0)),
        op(
            "f64.sqrt",
            "float",
            Some("sqrt_f64"),
            None,
            Ty::F64,
            Kind::Unary(I::F64Sqrt),
            F(2.0),
            F(0.0),
        ),
        bin("f32.add", "add_f32", Ty::F32, I::F32Add, F(1.0), F(1.0)),
        bin("f32.mul", "mul_f32", Ty::F32, I::F32Mul, F(1.5), F(1.0)),
        bin("f32.div", "div_f32", Ty::F32, I::F32Div, F(1.5), F(1.0)),
        op(
            "f32.sqrt",
            "float",
            Some("sqrt_f32"),
            None,
            Ty::F32,
            Kind::Unary(I::F32Sqrt),
            F(2.0),
            F(0.0),
        ),
        op(
            "i64.trunc_f64_s+f64.convert_i64_s",
            "conversion",
            Some("cvt_i64_f64"),
            None,
            Ty::F64,
            Kind::RoundTrip(I::I64TruncF64S, I::F64ConvertI64S),
            F(12345.0),
            F(0.0),
        ),
        op(
            "i32.trunc_f32_s+f32.convert_i32_s",
            "conversion",
            Some("cvt_i32_f32"),
            None,
            Ty::F32,
            Kind::RoundTrip(I::I32TruncF32S, I::F32ConvertI32S),
            F(12345.0),
            F(0.0),
        ),
        op(
            "i64.load",
            "memory",
            None,
            Some("load_u64"),
            Ty::I64,
            Kind::Load,
            Int(0),
            Int(0),
        ),
        op(
            "i64.store",
            "memory",
            None,
            Some("store_u64"),
            Ty::I64,
            Kind::Store,
            Int(1),
            Int(1),
        ),
        op(
            "call",
            "call",
            None,
            None,
            Ty::I64,
            Kind::Call,
            Int(1),
            Int(0),
        ),
        op(
            "call_indirect",
            "call",
            None,
            None,
            Ty::I64,
            Kind::CallIndirect,
            Int(1),
            Int(0),
        ),
    ]
}

// Function indices: the imported clock, then go, the callee.
const NOW: u32 = 0;
const GO: u32 = 1;
const CALLEE: u32 = 2;
// Type indices.
const T_NOW: u32 = 0;
const T_GO: u32 = 1;
const T_CALLEE: u32 = 2;

/// The parameters (passes, timed), then the locals: LANES accumulators, b,
/// the table index, the tick count and the first clock value.
const COUNT: u32 = 0;
const TIMED: u32 = 1;
const ACC: u32 = 2;
const B: u32 = ACC + LANES;
const INDEX: u32 = B + 1;
const HITS: u32 = INDEX + 1;
const T0: u32 = HITS + 1;

/// The module of `op` in `form` with `copies` copies in the sequence.
pub fn module(op: &OpDef, form: &str, copies: u32) -> Vec<u8> {
    let ty = op.ty.val();
    let mut types = TypeSection::new();
    types.ty().function([], [ValType::F64]);
    types
        .ty()
        .function([ValType::I32, ValType::I32], [ValType::I32]);
    types.ty().function([ty], [ty]);

    let mut imports = ImportSection::new();
    imports.import("env", "now", EntityType::Function(T_NOW));

    let mut funcs = FunctionSection::new();
    funcs.function(T_GO);
    funcs.function(T_CALLEE);

    let mut tables = TableSection::new();
    tables.table(TableType {
        element_type: RefType::FUNCREF,
        table64: false,
        minimum: 1,
        maximum: Some(1),
        shared: false,
    });
    let mut memories = MemorySection::new();
    memories.memory(MemoryType {
        minimum: 1,
        maximum: Some(1),
        memory64: false,
        shared: false,
        page_size_log2: None,
    });
    let mut exports = ExportSection::new();
    exports.export("go", ExportKind::Func, GO);
    let mut elements = ElementSection::new();
    elements.active(
        None,
        &ConstExpr::i32_const(0),
        Elements::Functions(std::borrow::Cow::Borrowed(&[CALLEE])),
    );

    let lanes = if form == "latency" { 1 } else { LANES };
    let mut code = CodeSection::new();
    code.function(&body(op, lanes, copies));
    let mut callee = Function::new([]);
    callee.instruction(&Instruction::LocalGet(0));
    callee.instruction(&Instruction::End);
    code.function(&callee);

    let mut data = DataSection::new();
    data.active(0, &ConstExpr::i32_const(0), initial_memory(op));

    let mut m = Module::new();
    m.section(&types)
        .section(&imports)
        .section(&funcs)
        .section(&tables)
        .section(&memories)
        .section(&exports)
        .section(&elements)
        .section(&code)
        .section(&data);
    m.finish()
}

fn initial_memory(op: &OpDef) -> Vec<u8> {
    let mut bytes = vec![0u8; (STORE_AT + 8) as usize];
    bytes[A_AT as usize..][..8].copy_from_slice(&op.ty.bytes(op.a).unwrap_or_default());
    bytes[B_AT as usize..][..8].copy_from_slice(&op.ty.bytes(op.b).unwrap_or_default());
    // Table index 0 at INDEX_AT: already zero.
    for k in 0..u64::from(LANES) {
        let at = CHASE_AT + 64 * k;
        bytes[at as usize..][..8].copy_from_slice(&at.to_le_bytes());
    }
    bytes
}

/// `go(count, timed) -> ticks`: load the operands, loop, store the
/// accumulators.
fn body(op: &OpDef, lanes: u32, copies: u32) -> Function {
    use Instruction as I;
    let ty = op.ty.val();
    let locals = vec![
        (LANES, ty),
        (1, ty),
        (1, ValType::I32),
        (1, ValType::I32),
        (1, ValType::F64),
    ];
    let mut f = Function::new(locals);
    for k in 0..LANES {
        if matches!(op.kind, Kind::Load) {
            f.instruction(&I::I64Const((CHASE_AT + 64 * u64::from(k)) as i64));
        } else {
            f.instruction(&I::I32Const(0));
            f.instruction(&op.ty.load(A_AT));
        }
        f.instruction(&I::LocalSet(ACC + k));
    }
    f.instruction(&I::I32Const(0));
    f.instruction(&op.ty.load(B_AT));
    f.instruction(&I::LocalSet(B));
    f.instruction(&I::I32Const(0));
    f.instruction(&I::I32Load(mem(INDEX_AT, 2)));
    f.instruction(&I::LocalSet(INDEX));

    f.instruction(&I::Loop(BlockType::Empty));
    f.instruction(&I::LocalGet(TIMED));
    f.instruction(&I::If(BlockType::Empty));
    f.instruction(&I::Call(NOW));
    f.instruction(&I::LocalSet(T0));
    f.instruction(&I::End);
    for j in 0..copies {
        copy(&mut f, op, ACC + j % lanes, j);
    }
    f.instruction(&I::LocalGet(TIMED));
    f.instruction(&I::If(BlockType::Empty));
    f.instruction(&I::Call(NOW));
    f.instruction(&I::LocalGet(T0));
    f.instruction(&I::F64Ne);
    f.instruction(&I::LocalGet(HITS));
    f.instruction(&I::I32Add);
    f.instruction(&I::LocalSet(HITS));
    f.instruction(&I::End);
    if matches!(op.kind, Kind::Store) {
        // The stored value changes every pass (the same one add for n and 2n).
        f.instruction(&I::LocalGet(ACC));
        f.instruction(&I::LocalGet(B));
        f.instruction(&I::I64Add);
        f.instruction(&I::LocalSet(ACC));
    }
    f.instruction(&I::LocalGet(COUNT));
    f.instruction(&I::I32Const(1));
    f.instruction(&I::I32Sub);
    f.instruction(&I::LocalTee(COUNT));
    f.instruction(&I::BrIf(0));
    f.instruction(&I::End);

    for k in 0..LANES {
        f.instruction(&I::I32Const(0));
        f.instruction(&I::LocalGet(ACC + k));
        f.instruction(&op.ty.store(SINK_AT + 8 * u64::from(k)));
    }
    f.instruction(&I::LocalGet(HITS));
    f.instruction(&I::End);
    f
}

/// Copy `j` of the sequence on accumulator `acc`.
fn copy(f: &mut Function, op: &OpDef, acc: u32, j: u32) {
    use Instruction as I;
    match &op.kind {
        Kind::Binary(ins) => {
            f.instruction(&I::LocalGet(acc));
            f.instruction(&I::LocalGet(B));
            f.instruction(ins);
            f.instruction(&I::LocalSet(acc));
        }
        Kind::Unary(ins) => {
            f.instruction(&I::LocalGet(acc));
            f.instruction(ins);
            f.instruction(&I::LocalSet(acc));
        }
        Kind::RoundTrip(first, second) => {
            f.instruction(&I::LocalGet(acc));
            f.instruction(first);
            f.instruction(second);
            f.instruction(&I::LocalSet(acc));
        }
        Kind::Load => {
            f.instruction(&I::LocalGet(acc));
            f.instruction(&I::I32WrapI64);
            f.instruction(&I::I64Load(mem(0, 3)));
            f.instruction(&I::LocalSet(acc));
        }
        Kind::Store => {
            f.instruction(&I::I32Const(0));
            f.instruction(&I::LocalGet(ACC));
            f.instruction(&I::I64Store(mem(STORE_AT + 8 * u64::from(j), 3)));
        }
        Kind::Call => {
            f.instruction(&I::LocalGet(acc));
            f.instruction(&I::Call(CALLEE));
            f.instruction(&I::LocalSet(acc));
        }
        Kind::CallIndirect => {
            f.instruction(&I::LocalGet(acc));
            f.instruction(&I::LocalGet(INDEX));
            f.instruction(&I::CallIndirect {
                type_index: T_CALLEE,
                table_index: 0,
            });
            f.instruction(&I::LocalSet(acc));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_is_valid_wasm() {
        for op in ops() {
            assert!(
                op.ty.bytes(op.a).is_some() && op.ty.bytes(op.b).is_some(),
                "{}",
                op.name
            );
            for form in op.forms() {
                for copies in [1, 16] {
                    let bytes = module(&op, form, copies);
                    wasmparser::Validator::new()
                        .validate_all(&bytes)
                        .unwrap_or_else(|e| panic!("{} {form} ×{copies}: {e}", op.name));
                }
            }
        }
    }
}
