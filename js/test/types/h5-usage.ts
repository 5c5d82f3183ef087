// 2026-11-29 - compile-only sample of the h5 types (js/src/h5.d.ts), checked by tsc --strict in
// js/test/types.test.mjs when TypeScript is installed. Not run.
import type { H5, H5FileObject, Dataset, Group, OutputData, Metadata, Filter } from '../../src/h5.js';
declare const h5: H5;
declare const mem: H5FileObject;

export async function sample(): Promise<void> {
  await h5.ready;
  const f = await h5.File.create(mem, { durable: false });
  const g: Group = f.create_group('g/sub');
  const d: Dataset = g.create_dataset({ name: 'x', data: new Float32Array([1, 2]), maxshape: [null], chunks: [16], compression: 'gzip', shuffle: true });
  d.append([3, 4]);
  g.create_dataset({ name: 'c', data: [{ a: 1, v: [1, 2, 3] }], dtype: [['a', '<i4'], ['v', '<f4', [3]]] });
  g.create_dataset({ name: 'empty', shape: [0, 4], dtype: '<f8', maxshape: [null, 4] });
  g.create_dataset({ name: 'copy', data: d.value, dtype: d.metadata });
  f.create_attribute('title', 'x');
  f.flush();
  const v: OutputData = d.value;
  const m: Metadata = d.metadata;
  const filters: Filter[] = d.filters;
  const e = f.get('g/x');
  if (e instanceof h5.Dataset) console.log(e.shape, e.dtype, e.np_dtype, e.slice([[0, 2], [null, null, 2]]), e.attrs['u']?.value, m.maxshape, filters);
  for (const [k, x] of f.items()) console.log(k, x?.type);
  console.log(v, f.keys(), f.paths(), f.close(), f.stats().bytes);
  const r = await h5.File.open(mem, 'r');
  console.log(r.get_attribute('title', true), r.attrs['title'].to_array());
  // @ts-expect-error modes are checked
  await h5.File.open(mem, 'q');
  // @ts-expect-error create_dataset needs a name
  g.create_dataset({ data: [1] });
}
