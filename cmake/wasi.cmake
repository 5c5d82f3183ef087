# WASI preview1 with Debian's clang + wasi-libc (see ../shared/toolchain.md).
# scripts/build.sh makes the sysroot (two symlinks) under build/wasi-sysroot.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang-14)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
get_filename_component(_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(CMAKE_SYSROOT "${_root}/build/wasi-sysroot")
set(CMAKE_AR llvm-ar-14 CACHE FILEPATH "")
set(CMAKE_RANLIB llvm-ranlib-14 CACHE FILEPATH "")
set(CMAKE_EXECUTABLE_SUFFIX_C .wasm)
set(CMAKE_C_FLAGS_INIT "-D_WASI_EMULATED_MMAN")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld -Wl,-z,stack-size=1048576")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
