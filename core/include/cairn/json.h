/*
** 2026-12-02
**
** cairn/json.h - a small strict JSON reader (RFC 8259): parse a document into a tree of
** nodes, then walk it by key or over children. It is the reader the core uses for memory
** metadata and filters, made public for front ends (the CLI's LoCoMo evaluator reads its data
** set with it). No writer: the core's JSON output is built by the calls that return it.
**
** Nodes are numbered: node 0 is the root, every other node has a number > 0, so calls that
** find a node return 0 for "none". A node number is valid for the document it came from until
** cairn_json_free; passing a number that is not a node of the document is safe (the calls
** return 0, -1, NULL or NaN as stated).
**
**   cairn_json *j;
**   if (cairn_json_parse(z, n, &j) == CAIRN_OK) {
**     for (uint32_t x = cairn_json_child(j, cairn_json_get(j, 0, "items")); x; x = cairn_json_next(j, x))
**       use(cairn_json_str(j, cairn_json_get(j, x, "name"), NULL));
**     cairn_json_free(j);
**   }
*/
#ifndef CAIRN_JSON_H
#define CAIRN_JSON_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Node types (cairn_json_type). The values are frozen. */
#define CAIRN_JSON_NULL   0
#define CAIRN_JSON_FALSE  1
#define CAIRN_JSON_TRUE   2
#define CAIRN_JSON_NUMBER 3
#define CAIRN_JSON_STRING 4
#define CAIRN_JSON_ARRAY  5
#define CAIRN_JSON_OBJECT 6

typedef struct cairn_json cairn_json; /* a parsed document (opaque) */

/*
** Parse z[0..n) as one complete JSON value (surrounding whitespace allowed; z need not be
** NUL-terminated). On success *ppJson is a new document, which the caller frees with
** cairn_json_free; it does not refer to z afterwards. On failure *ppJson is NULL and
** cairn_errmsg() names the byte offset:
**   CAIRN_CORRUPT  not JSON: a syntax error, a bad escape, a control byte inside a string,
**                  bytes after the value (string bytes are not checked as UTF-8; a lone
**                  surrogate escape decodes to U+FFFD)
**   CAIRN_RANGE    nesting deeper than 64, or more than 2^26 values
**   CAIRN_NOMEM    out of memory
**   CAIRN_MISUSE   ppJson NULL, or z NULL with n > 0
*/
CAIRN_API int cairn_json_parse(const char *z, size_t n, cairn_json **ppJson);
/* Free a document and everything the calls below returned from it. NULL does nothing. */
CAIRN_API void cairn_json_free(cairn_json *pJson);

/* The type of node i (CAIRN_JSON_*), or -1 if i is not a node of the document. */
CAIRN_API int cairn_json_type(const cairn_json *pJson, uint32_t i);
/* Elements of an array, members (key/value pairs) of an object; 0 for any other node. */
CAIRN_API uint32_t cairn_json_count(const cairn_json *pJson, uint32_t i);
/* The value of key zKey (NUL-terminated, compared bytewise after decoding escapes) in object
** iObj; 0 when iObj is not an object or has no such key. With duplicate keys, the first. */
CAIRN_API uint32_t cairn_json_get(const cairn_json *pJson, uint32_t iObj, const char *zKey);
/* Iteration, in document order: cairn_json_child gives the first element of an array or the
** value of the first member of an object (0 if empty or not a container); cairn_json_next the
** element or member value after i (0 after the last). */
CAIRN_API uint32_t cairn_json_child(const cairn_json *pJson, uint32_t i);
CAIRN_API uint32_t cairn_json_next(const cairn_json *pJson, uint32_t i);
/* The key of member value i (decoded UTF-8, NUL-terminated; its length in *pn if pn is not
** NULL), or NULL when i is not the value of an object member. */
CAIRN_API const char *cairn_json_key(const cairn_json *pJson, uint32_t i, size_t *pn);
/* The decoded UTF-8 of string node i, NUL-terminated (a string holding \u0000 is cut there;
** *pn, if pn is not NULL, has the full length), or NULL when i is not a string. The text
** lives until cairn_json_free. */
CAIRN_API const char *cairn_json_str(const cairn_json *pJson, uint32_t i, size_t *pn);
/* The value of number node i as a double (strtod's rounding), or NaN when i is not a number. */
CAIRN_API double cairn_json_num(const cairn_json *pJson, uint32_t i);

#ifdef __cplusplus
}
#endif
#endif
