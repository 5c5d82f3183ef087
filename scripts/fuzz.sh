#!/usr/bin/env bash
# scripts/fuzz.sh [TARGET[:SECONDS]]... - coverage-guided fuzzing with libFuzzer.
#
# Builds the fuzz targets of tests/fuzz/ with clang, libFuzzer, ASan and UBSan (build/fuzz,
# CMake option CAIRN_LIBFUZZER) and runs each for a bounded time, seeded with its corpus
# (tests/fuzz/corpus/<target>/) and, for h5_read, with the small files of the HDF5 interop
# corpus when a native test run has written it (build/native/tmp/h5gen: libhdf5, h5py, h5wasm
# and netCDF-4 files). New inputs go to build/fuzz/work/<target>/, never into the repository.
#
# Fails on a crash, a sanitizer report, a leak, an input that runs more than 10 s (a hang), an
# RSS above 2 GiB or a single allocation above 256 MiB (the targets cap the library's own
# allocations at 64 MiB, so a corrupted size field can only give an error). The input that
# failed is kept as build/fuzz/artifacts/<target>-crash-... : add it to the target's corpus
# once fixed, so the replay in ctest (tests/fuzz/replay.c) keeps it as a regression test.
#
# Default (what scripts/test.sh runs in CI): h5_read for 120 s, zl_decode and h5w_edit for 60 s,
# and the other parsers and chunkers for 20-30 s each (longer local runs of those found a crash
# in h5w_edit, a chunking difference in cas_cdc and a leak in mem_text on 2026-11-30).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(h5_read:120 zl_decode:60 h5w_edit:60 cas_cdc:30 mem_text:30 cas_store:20 mem_log:20 deflate_enc:20 kg_text:20)

CC=${FUZZ_CC:-$(command -v clang-14 || command -v clang)}
cmake -S . -B build/fuzz -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=Debug -DCAIRN_LIBFUZZER=ON >/dev/null
targets=()
for r in "${runs[@]}"; do targets+=("fuzz_${r%%:*}"); done
cmake --build build/fuzz -j"${JOBS:-2}" --target "${targets[@]}" >/dev/null

mkdir -p build/fuzz/artifacts
status=0
for r in "${runs[@]}"; do
  t=${r%%:*}
  secs=${r#*:}
  [ "$secs" = "$r" ] && secs=60
  work=build/fuzz/work/$t
  mkdir -p "$work"
  seeds=(tests/fuzz/corpus/"$t")
  if [ "$t" = h5_read ] && [ -d build/native/tmp/h5gen ]; then
    mkdir -p build/fuzz/seeds-h5gen
    find build/native/tmp/h5gen -name '*.h5' -size -64k -exec cp {} build/fuzz/seeds-h5gen/ \;
    seeds+=(build/fuzz/seeds-h5gen)
  fi
  echo "fuzz $t: ${secs}s, seeds ${seeds[*]}"
  log=build/fuzz/$t.log
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
     -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" "$work" "${seeds[@]}" >"$log" 2>&1; then
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+ +DONE" "$log" | sed 's/^/  /'
    echo "  corpus now $(ls "$work" | wc -l) new inputs in $work"
  else
    status=1
    echo "FAILED: fuzz $t (log $log):"
    grep -E "ERROR|SUMMARY|Test unit written|==[0-9]+==" "$log" | head -20
  fi
done
exit $status
