/*
** 2026-11-29
**
** core/common/json.c - a small strict JSON reader (RFC 8259): the memory module's record
** metadata and JSON filters, and the public cairn/json.h (the CLI's LoCoMo evaluator). It builds a flat node array in
** pre-order (children follow their parent; next links siblings) with strings decoded into one
** arena. Depth is capped at 64 and nodes at 1<<26, so hostile input cannot exhaust the stack
** or memory beyond a bound proportional to its size. Errors name the byte offset.
*/
#include <math.h>
#include <stdlib.h>

#include "json_int.h"
#include "cairn/json.h"

#define JSON_MAX_DEPTH 64
#define JSON_MAX_NODES (1u << 26)

typedef struct JP {
  Json *j;
  const char *z;
  size_t n, i;
} JP;

static void jsWs(JP *p) {
  while (p->i < p->n && (p->z[p->i] == ' ' || p->z[p->i] == '\t' || p->z[p->i] == '\n' || p->z[p->i] == '\r')) p->i++;
}

static int jsNode(JP *p, uint8_t type, uint32_t *pIdx) {
  Json *j = p->j;
  if (j->n >= JSON_MAX_NODES) return cairnErr(CAIRN_RANGE, "json: more than %u values at offset %zu", JSON_MAX_NODES, p->i);
  if (j->n == j->nAlloc) CAIRN_TRY(CAIRN_GROW(j->a, j->nAlloc, (size_t)j->n + 1, "json: nodes"));
  memset(&j->a[j->n], 0, sizeof(JsonNode));
  j->a[j->n].type = type;
  *pIdx = j->n++;
  return CAIRN_OK;
}

static int jsArena(JP *p, size_t nMore) {
  Json *j = p->j;
  if (j->nArena + nMore <= j->nArenaAlloc) return CAIRN_OK;
  return cairnArrayReserve(&j->zArena, &j->nArenaAlloc, j->nArena + nMore, 1, 256, "json: strings");
}

static int hex4(const char *z, uint32_t *pv) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    char c = z[k];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
    else if ((c | 32) >= 'a' && (c | 32) <= 'f') v |= (uint32_t)((c | 32) - 'a' + 10);
    else return 0;
  }
  *pv = v;
  return 1;
}

static int jsString(JP *p, uint32_t *pIdx) {
  size_t i0 = p->i;
  p->i++; /* opening quote */
  CAIRN_TRY(jsNode(p, JSON_STR, pIdx));
  /* decoded length <= raw length */
  size_t k = p->i;
  while (k < p->n && p->z[k] != '"') k += (p->z[k] == '\\') ? 2 : 1;
  if (k >= p->n) return cairnErr(CAIRN_CORRUPT, "json: unterminated string at offset %zu", i0);
  CAIRN_TRY(jsArena(p, k - p->i + 1));
  Json *j = p->j;
  char *o = j->zArena + j->nArena;
  size_t no = 0;
  while (p->z[p->i] != '"') {
    unsigned char c = (unsigned char)p->z[p->i];
    if (c < 0x20) return cairnErr(CAIRN_CORRUPT, "json: control byte 0x%x in string at offset %zu", c, p->i);
    if (c != '\\') {
      o[no++] = (char)c;
      p->i++;
      continue;
    }
    char e = p->z[p->i + 1];
    p->i += 2;
    switch (e) {
      case '"': o[no++] = '"'; break;
      case '\\': o[no++] = '\\'; break;
      case '/': o[no++] = '/'; break;
      case 'b': o[no++] = '\b'; break;
      case 'f': o[no++] = '\f'; break;
      case 'n': o[no++] = '\n'; break;
      case 'r': o[no++] = '\r'; break;
      case 't': o[no++] = '\t'; break;
      case 'u': {
        uint32_t u, u2;
        if (p->i + 4 > k || !hex4(p->z + p->i, &u)) return cairnErr(CAIRN_CORRUPT, "json: bad \\u escape at offset %zu", p->i - 2);
        p->i += 4;
        if (u >= 0xd800 && u < 0xdc00 && p->i + 6 <= k && p->z[p->i] == '\\' && p->z[p->i + 1] == 'u' &&
            hex4(p->z + p->i + 2, &u2) && u2 >= 0xdc00 && u2 < 0xe000) {
          u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00);
          p->i += 6;
        } else if (u >= 0xd800 && u < 0xe000) u = 0xfffd; /* lone surrogate */
        /* 6 raw bytes of escape give at most 4 output bytes: stays within the bound */
        if (u < 0x80) o[no++] = (char)u;
        else if (u < 0x800) o[no++] = (char)(0xc0 | (u >> 6)), o[no++] = (char)(0x80 | (u & 0x3f));
        else if (u < 0x10000) {
          o[no++] = (char)(0xe0 | (u >> 12)), o[no++] = (char)(0x80 | ((u >> 6) & 0x3f));
          o[no++] = (char)(0x80 | (u & 0x3f));
        } else {
          o[no++] = (char)(0xf0 | (u >> 18)), o[no++] = (char)(0x80 | ((u >> 12) & 0x3f));
          o[no++] = (char)(0x80 | ((u >> 6) & 0x3f)), o[no++] = (char)(0x80 | (u & 0x3f));
        }
        break;
      }
      default: return cairnErr(CAIRN_CORRUPT, "json: bad escape at offset %zu", p->i - 2);
    }
  }
  p->i++; /* closing quote */
  o[no] = 0;
  if (no > UINT32_MAX) return cairnErr(CAIRN_RANGE, "json: string too long at offset %zu", i0);
  j->a[*pIdx].iz = j->nArena;
  j->a[*pIdx].nz = (uint32_t)no;
  j->nArena += no + 1;
  return CAIRN_OK;
}

static int jsValue(JP *p, int depth, uint32_t *pIdx);

static int jsContainer(JP *p, int depth, uint32_t *pIdx, int isObj) {
  size_t i0 = p->i;
  if (depth >= JSON_MAX_DEPTH) return cairnErr(CAIRN_RANGE, "json: nesting deeper than %d at offset %zu", JSON_MAX_DEPTH, p->i);
  CAIRN_TRY(jsNode(p, isObj ? JSON_OBJ : JSON_ARR, pIdx));
  uint32_t me = *pIdx, prev = 0, nKid = 0;
  p->i++;
  jsWs(p);
  if (p->i < p->n && p->z[p->i] == (isObj ? '}' : ']')) {
    p->i++;
    return CAIRN_OK;
  }
  for (;;) {
    uint32_t kid;
    jsWs(p);
    if (isObj) {
      if (p->i >= p->n || p->z[p->i] != '"') return cairnErr(CAIRN_CORRUPT, "json: expected a key at offset %zu", p->i);
      CAIRN_TRY(jsString(p, &kid));
      p->j->a[kid].member = 1;
      if (prev) p->j->a[prev].next = kid;
      prev = kid, nKid++;
      jsWs(p);
      if (p->i >= p->n || p->z[p->i] != ':') return cairnErr(CAIRN_CORRUPT, "json: expected ':' at offset %zu", p->i);
      p->i++;
    }
    CAIRN_TRY(jsValue(p, depth + 1, &kid));
    if (isObj) {
      cairnAssert(p->j->a[kid - 1].member == 1); /* the key is the node just before its value */
      p->j->a[kid].member = 2;
    }
    if (prev) p->j->a[prev].next = kid;
    prev = kid, nKid++;
    jsWs(p);
    if (p->i >= p->n) return cairnErr(CAIRN_CORRUPT, "json: unterminated %s opened at offset %zu", isObj ? "object" : "array", i0);
    char c = p->z[p->i++];
    if (c == ',') continue;
    if (c == (isObj ? '}' : ']')) break;
    return cairnErr(CAIRN_CORRUPT, "json: unexpected '%c' at offset %zu", c, p->i - 1);
  }
  p->j->a[me].n = nKid;
  return CAIRN_OK;
}

static int jsValue1(JP *p, int depth, uint32_t *pIdx);
static int jsValue(JP *p, int depth, uint32_t *pIdx) {
  jsWs(p);
  size_t i0 = p->i;
  CAIRN_TRY(jsValue1(p, depth, pIdx));
  p->j->a[*pIdx].iSrc = i0;
  p->j->a[*pIdx].nSrc = p->i - i0;
  return CAIRN_OK;
}
static int jsValue1(JP *p, int depth, uint32_t *pIdx) {
  if (p->i >= p->n) return cairnErr(CAIRN_CORRUPT, "json: unexpected end at offset %zu", p->i);
  char c = p->z[p->i];
  if (c == '{') return jsContainer(p, depth, pIdx, 1);
  if (c == '[') return jsContainer(p, depth, pIdx, 0);
  if (c == '"') return jsString(p, pIdx);
  static const char *const aLit[3] = {"null", "false", "true"};
  for (int t = 0; t < 3; t++) {
    size_t nl = strlen(aLit[t]);
    if (p->n - p->i >= nl && memcmp(p->z + p->i, aLit[t], nl) == 0) {
      p->i += nl;
      return jsNode(p, (uint8_t)t, pIdx);
    }
  }
  /* number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  size_t i = p->i;
  if (i < p->n && p->z[i] == '-') i++;
  size_t nd = 0;
  while (i < p->n && p->z[i] >= '0' && p->z[i] <= '9') i++, nd++;
  if (nd == 0 || (nd > 1 && p->z[i - nd] == '0')) return cairnErr(CAIRN_CORRUPT, "json: unexpected '%c' at offset %zu", c, p->i);
  if (i < p->n && p->z[i] == '.') {
    i++, nd = 0;
    while (i < p->n && p->z[i] >= '0' && p->z[i] <= '9') i++, nd++;
    if (!nd) return cairnErr(CAIRN_CORRUPT, "json: bad number at offset %zu", p->i);
  }
  if (i < p->n && (p->z[i] | 32) == 'e') {
    i++;
    if (i < p->n && (p->z[i] == '+' || p->z[i] == '-')) i++;
    nd = 0;
    while (i < p->n && p->z[i] >= '0' && p->z[i] <= '9') i++, nd++;
    if (!nd) return cairnErr(CAIRN_CORRUPT, "json: bad number at offset %zu", p->i);
  }
  char buf[64];
  size_t nb = i - p->i;
  double v;
  if (nb < sizeof buf) {
    memcpy(buf, p->z + p->i, nb);
    buf[nb] = 0;
    v = strtod(buf, NULL);
  } else v = 0; /* absurdly long numbers: keep the syntax check, not the value */
  CAIRN_TRY(jsNode(p, JSON_NUM, pIdx));
  p->j->a[*pIdx].num = v;
  p->i = i;
  return CAIRN_OK;
}

void cairnJsonFree(Json *j) {
  cairnFree(j->a);
  cairnFree(j->zArena);
  memset(j, 0, sizeof(*j));
}

int cairnJsonParse(Json *j, const char *z, size_t n) {
  memset(j, 0, sizeof(*j));
  if (!z && n) return cairnErr(CAIRN_MISUSE, "json: NULL input");
  JP p = {j, z, n, 0};
  uint32_t root;
  int rc = jsValue(&p, 0, &root);
  if (rc == CAIRN_OK) {
    jsWs(&p);
    if (p.i != n) rc = cairnErr(CAIRN_CORRUPT, "json: trailing bytes at offset %zu", p.i);
  }
  if (rc) {
    cairnJsonFree(j);
    return rc;
  }
  for (uint32_t i = 0; i < j->n; i++)
    if (j->a[i].type == JSON_STR) j->a[i].z = j->zArena + j->a[i].iz;
  return CAIRN_OK;
}

uint32_t cairnJsonGet(const Json *j, uint32_t iObj, const char *zKey) {
  if (iObj >= j->n || j->a[iObj].type != JSON_OBJ) return 0;
  size_t nk = strlen(zKey);
  for (uint32_t k = cairnJsonChild(j, iObj); k; ) {
    uint32_t v = j->a[k].next;
    if (j->a[k].nz == nk && memcmp(j->a[k].z, zKey, nk) == 0) return v;
    k = v ? j->a[v].next : 0;
  }
  return 0;
}

int cairnJsonEqual(const Json *ja, uint32_t ia, const Json *jb, uint32_t ib) {
  const JsonNode *a = &ja->a[ia], *b = &jb->a[ib];
  if (a->type != b->type) return 0;
  switch (a->type) {
    case JSON_NUM: return a->num == b->num;
    case JSON_STR: return a->nz == b->nz && memcmp(a->z, b->z, a->nz) == 0;
    case JSON_ARR: {
      if (a->n != b->n) return 0;
      for (uint32_t x = cairnJsonChild(ja, ia), y = cairnJsonChild(jb, ib); x && y; x = ja->a[x].next, y = jb->a[y].next)
        if (!cairnJsonEqual(ja, x, jb, y)) return 0;
      return 1;
    }
    case JSON_OBJ: {
      if (a->n != b->n) return 0;
      for (uint32_t k = cairnJsonChild(ja, ia); k; ) {
        uint32_t v = ja->a[k].next;
        uint32_t w = cairnJsonGet(jb, ib, ja->a[k].z);
        if (!w || !cairnJsonEqual(ja, v, jb, w)) return 0;
        k = ja->a[v].next;
      }
      return 1;
    }
    default: return 1;
  }
}

/* ------------------------------------------------------------------ public API (cairn/json.h) */
struct cairn_json {
  Json j;
};

int cairn_json_parse(const char *z, size_t n, cairn_json **ppJson) {
  if (!ppJson) return cairnErr(CAIRN_MISUSE, "json_parse: ppJson is NULL");
  *ppJson = NULL;
  cairn_json *p = cairnMalloc(sizeof(*p));
  if (!p) return cairnErr(CAIRN_NOMEM, "json_parse: out of memory");
  int rc = cairnJsonParse(&p->j, z, n);
  if (rc) {
    cairnFree(p);
    return rc;
  }
  *ppJson = p;
  return CAIRN_OK;
}

void cairn_json_free(cairn_json *pJson) {
  if (!pJson) return;
  cairnJsonFree(&pJson->j);
  cairnFree(pJson);
}

/* Node i of the document, or NULL. */
static const JsonNode *jsAt(const cairn_json *pJson, uint32_t i) {
  return pJson && i < pJson->j.n ? &pJson->j.a[i] : NULL;
}

int cairn_json_type(const cairn_json *pJson, uint32_t i) {
  const JsonNode *x = jsAt(pJson, i);
  return x ? x->type : -1;
}

uint32_t cairn_json_count(const cairn_json *pJson, uint32_t i) {
  const JsonNode *x = jsAt(pJson, i);
  if (!x || (x->type != JSON_ARR && x->type != JSON_OBJ)) return 0;
  return x->type == JSON_OBJ ? x->n / 2 : x->n;
}

uint32_t cairn_json_get(const cairn_json *pJson, uint32_t iObj, const char *zKey) {
  if (!jsAt(pJson, iObj) || !zKey) return 0;
  return cairnJsonGet(&pJson->j, iObj, zKey);
}

uint32_t cairn_json_child(const cairn_json *pJson, uint32_t i) {
  const JsonNode *x = jsAt(pJson, i);
  if (!x || (x->type != JSON_ARR && x->type != JSON_OBJ) || !x->n) return 0;
  return x->type == JSON_OBJ ? i + 2 : i + 1; /* an object: the value after the first key */
}

uint32_t cairn_json_next(const cairn_json *pJson, uint32_t i) {
  const JsonNode *x = jsAt(pJson, i);
  if (!x || x->member == 1) return 0;
  if (x->member == 0) return x->next;
  return x->next ? pJson->j.a[x->next].next : 0; /* a member value: skip the next key */
}

const char *cairn_json_key(const cairn_json *pJson, uint32_t i, size_t *pn) {
  const JsonNode *x = jsAt(pJson, i);
  if (!x || x->member != 2) return NULL;
  const JsonNode *k = &pJson->j.a[i - 1];
  if (pn) *pn = k->nz;
  return k->z;
}

const char *cairn_json_str(const cairn_json *pJson, uint32_t i, size_t *pn) {
  const JsonNode *x = jsAt(pJson, i);
  if (!x || x->type != JSON_STR || x->member == 1) return NULL;
  if (pn) *pn = x->nz;
  return x->z;
}

double cairn_json_num(const cairn_json *pJson, uint32_t i) {
  const JsonNode *x = jsAt(pJson, i);
  return x && x->type == JSON_NUM ? x->num : NAN;
}
