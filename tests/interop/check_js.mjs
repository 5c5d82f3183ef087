// tests/interop/check_js.mjs DIR - h5wasm (libhdf5 compiled to wasm, with the zstd/lz4 plugins of
// h5wasm-plugins) and jsfive (a pure-JS reader) read the files tests/core/test_h5w.c wrote and
// compare values with the same formulas (keep in sync with test_h5w.c and check_h5py.py).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import h5wasm from "h5wasm/node";
import * as jsfive from "jsfive";

const dir = process.argv[2];
const here = path.dirname(fileURLToPath(import.meta.url));
const bad = [];
const check = (name, cond) => { if (!cond) bad.push(name); };
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const eq = (a, b) => a.length === b.length && a.every((x, i) => (typeof x === "bigint" ? x === BigInt(b[i]) : x === b[i]));
const f32 = (x) => Math.fround(x);

const exp = {
  i8: range(1000, (i) => (i % 200) - 100),
  u16: range(1000, (i) => (i * 61) & 0xffff),
  i32: range(1000, (i) => i * 1000 - 500000),
  i64: range(1000, (i) => -BigInt(i) * 123456789n),
  f32: range(1000, (i) => f32(f32(i) * 0.25 - 3)),
  f64: range(1000, (i) => i * 1e-3 + 1e10),
  compact: range(20, (i) => i * 11 - 100),
  filled: range(20, () => -1.5),
  half: range(7000, (i) => f32(i * 0.5)),
  ext: range(300, (i) => i),
  fill7: range(100, () => -7),
  long: range(300, (i) => i * 3 + 1),
  partial: range(35, (i) => i * 1.5),
};
const flat = (v) => (ArrayBuffer.isView(v) || Array.isArray(v) ? Array.from(v).flat(Infinity) : [v]);

// ---------------------------------------------------------------- h5wasm
const M = await h5wasm.ready;
M.insert_plugin_search_path(path.join(here, "node_modules/h5wasm-plugins/plugins"), 0);
{
  const f = new h5wasm.File(path.join(dir, "h5w_types.h5"), "r");
  for (const k of ["i8", "u16", "i32", "f32", "f64", "compact", "filled"]) check(`h5wasm ${k}`, eq(flat(f.get(k).value), exp[k]));
  check("h5wasm i64", eq(flat(f.get("i64").value), exp.i64.map(Number)) || eq(Array.from(f.get("i64").value), exp.i64));
  check("h5wasm f32 dtype", f.get("f32").dtype === "<f");
  check("h5wasm vstr", JSON.stringify(f.get("vstr").value) === JSON.stringify(["alpha", "", "\u03b2-unicode", "x".repeat(6000), "omega"]));
  check("h5wasm fstr", JSON.stringify(f.get("fstr").value) === JSON.stringify(range(20, (i) => `s${i}`)));
  const c = f.get("cmpd").value;
  check("h5wasm cmpd", c.length === 10 && c[3][0] === 21 && c[3][1] === 0.75 && c[3][2] === "abc3");
  check("h5wasm enum", eq(flat(f.get("enum").value), range(30, (i) => i % 3)));
  check("h5wasm scalar", f.get("scalar").value === 3.5);
  check("h5wasm attrs", f.attrs["title"].value === "cairn writer test" && f.attrs["version"].value === 42);
  check("h5wasm attr vec", eq(flat(f.get("g1").attrs["vec"].value), [1, -2, 3.25]));
  check("h5wasm attr names", JSON.stringify(f.get("g1/g2").attrs["names"].value) === JSON.stringify(["alpha", "", "\u03b2-unicode"]));
  f.close();
}
{
  const f = new h5wasm.File(path.join(dir, "h5w_chunked.h5"), "r");
  for (let k = 0; k < 8; k++) check(`h5wasm c${k}`, eq(flat(f.get(`c${k}`).value), exp.half));
  check("h5wasm ext", eq(flat(f.get("ext").value), exp.ext));
  check("h5wasm fillonly", eq(flat(f.get("fillonly").value), exp.fill7));
  check("h5wasm long", eq(flat(f.get("long").value), exp.long));
  check("h5wasm partial", eq(flat(f.get("partial").value), exp.partial));
  f.close();
}
{
  const f = new h5wasm.File(path.join(dir, "h5w_wide.h5"), "r");
  check("h5wasm many", f.get("many").keys().length === 2000);
  const a = f.get("attrs").attrs;
  check("h5wasm 127 attrs", Object.keys(a).length === 127 && Number(a["a4"].value) === -4 && Number(a["a5"].value) === 18);
  f.close();
}

const denseNames = new Set([...range(10000, (i) => `g${String(i).padStart(5, "0")}`), ...range(100, (i) => `h${String(i).padStart(5, "0")}`), "data", "alias"]);
{
  // dense link storage (tests/core/h5w_dense.c): every name listed, every link followed
  const f = new h5wasm.File(path.join(dir, "h5w_dense_10k.h5"), "r");
  const g = f.get("big");
  const keys = g.keys();
  check("h5wasm dense names", keys.length === denseNames.size && keys.every((k) => denseNames.has(k)));
  let followed = 0;
  for (const k of keys) if (g.get(k)) followed++;
  check("h5wasm dense follow", followed === denseNames.size);
  check("h5wasm dense data", eq(flat(g.get("data").value), range(300, (i) => i).map(BigInt)) || eq(flat(g.get("data").value).map(Number), range(300, (i) => i)));
  f.close();
}

// ---------------------------------------------------------------- jsfive (no zstd/lz4 filters)
const jf = (name) => {
  const b = fs.readFileSync(path.join(dir, name));
  return new jsfive.File(b.buffer.slice(b.byteOffset, b.byteOffset + b.length), name);
};
{
  const f = jf("h5w_types.h5");
  for (const k of ["i8", "u16", "i32", "f32", "f64", "filled"]) check(`jsfive ${k}`, eq(flat(f.get(k).value), exp[k]));
  check("jsfive vstr", JSON.stringify(f.get("vstr").value) === JSON.stringify(["alpha", "", "\u03b2-unicode", "x".repeat(6000), "omega"]));
  check("jsfive attrs", f.attrs["version"] === 42 && f.attrs["title"] === "cairn writer test");
  check("jsfive nested", eq(flat(f.get("g1/g2/leaf").value), exp.i32.slice(0, 10)));
  check("jsfive attr vec", eq(flat(f.get("g1").attrs["vec"]), [1, -2, 3.25]));
}
{
  const f = jf("h5w_chunked.h5");
  for (const k of [0, 1, 4, 6]) check(`jsfive c${k}`, eq(flat(f.get(`c${k}`).value), exp.half));
  check("jsfive ext", eq(flat(f.get("ext").value), exp.ext));
  check("jsfive long", eq(flat(f.get("long").value), exp.long));
}
{
  const f = jf("h5w_wide.h5");
  check("jsfive many", f.get("many").keys.length === 2000);
  check("jsfive 127 attrs", Object.keys(f.get("attrs").attrs).length === 127);
}

{
  const f = jf("h5w_dense_10k.h5");
  const keys = f.get("big").keys;
  check("jsfive dense names", keys.length === denseNames.size && keys.every((k) => denseNames.has(k)));
}

if (bad.length) {
  console.log("FAIL h5wasm/jsfive:", bad.join(", "));
  process.exit(1);
}
console.log("ok   h5wasm 0.8.8 (+ zstd/lz4 plugins) and jsfive 0.4.2: every checked value of the writer corpus");
