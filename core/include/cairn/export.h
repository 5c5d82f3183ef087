/*
** 2026-12-02
**
** cairn/export.h - CAIRN_API, the mark every public declaration carries. The native libraries
** are built with hidden visibility by default (CMakeLists.txt), so libcairn.so exports exactly
** the calls declared with CAIRN_API under core/include/cairn/ and nothing of the core's insides
** (scripts/check-exports.sh checks it with nm in CI). A program that links libcairn.a is not
** affected: visibility only shapes a shared object's dynamic symbol table.
*/
#ifndef CAIRN_EXPORT_H
#define CAIRN_EXPORT_H

#ifndef CAIRN_API
#if defined(__GNUC__) || defined(__clang__)
#define CAIRN_API __attribute__((visibility("default")))
#else
#define CAIRN_API
#endif
#endif

#endif /* CAIRN_EXPORT_H */
