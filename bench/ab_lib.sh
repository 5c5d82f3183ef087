# 2026-12-02 - bench/ab_lib.sh, sourced by bench/ab.sh and bench/durable_ab.sh: abLib REV builds
# that revision's libcairn.a (Release, a detached git worktree under build/ab/src-REV) and prints
# the worktree's path; abOut is where the benches' binaries go.
abRoot=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
abOut=$abRoot/build/ab
mkdir -p "$abOut"
abLib() {
  local rev=$1 d=$abOut/src-$1
  [ -d "$d" ] || git -C "$abRoot" worktree add -q --detach "$d" "$rev"
  cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=Release -DCAIRN_TESTS=OFF >/dev/null
  cmake --build "$d/build" -j2 --target cairn_static >/dev/null
  echo "$d"
}
