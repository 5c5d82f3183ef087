/*
** 2026-12-02
**
** core/common/json_int.h - the core's small strict JSON reader (core/common/json.c): a flat
** node array in pre-order (children follow their parent, next links siblings; an object's
** children alternate key and value) with strings decoded into one arena. The memory module
** reads metadata and filters with it; cairn/json.h is its public face.
*/
#ifndef CAIRN_JSON_INT_H
#define CAIRN_JSON_INT_H

#include "internal.h"

#define JSON_NULL 0
#define JSON_FALSE 1
#define JSON_TRUE 2
#define JSON_NUM 3
#define JSON_STR 4
#define JSON_ARR 5
#define JSON_OBJ 6
typedef struct JsonNode {
  uint8_t type;
  uint8_t member;    /* 1: the key of an object member, 2: its value (the key is the node before) */
  uint32_t n;        /* children (ARR, OBJ: keys and values alternate, n counts pairs * 2) */
  uint32_t next;     /* index of the next sibling (0 = none) */
  double num;
  const char *z;     /* STR: decoded UTF-8 in the arena (NUL-terminated); key too */
  uint32_t nz;
  size_t iz;         /* offset of z in the arena */
  size_t iSrc, nSrc; /* the value's bytes in the source text */
} JsonNode;
typedef struct Json {
  JsonNode *a;
  uint32_t n, nAlloc;
  char *zArena;
  size_t nArena, nArenaAlloc;
} Json;
/* Parse z[0..n) completely (depth <= 64, nodes <= 1<<26); on error a message with the offset. */
int cairnJsonParse(Json *j, const char *z, size_t n);
void cairnJsonFree(Json *j);
/* First child of node i (0 if none), and the value of key zKey in object i (0 if absent). */
static inline uint32_t cairnJsonChild(const Json *j, uint32_t i) { return j->a[i].n ? i + 1 : 0; }
uint32_t cairnJsonGet(const Json *j, uint32_t iObj, const char *zKey);
/* Do two values in two documents compare equal (numbers by value, objects key-ordered)? */
int cairnJsonEqual(const Json *ja, uint32_t ia, const Json *jb, uint32_t ib);

#endif /* CAIRN_JSON_INT_H */
