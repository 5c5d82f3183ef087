/*
** 2026-12-02
**
** hosts/s3.c - the S3 host (cairn/objstore.h): an object store and a read-only, block-cached
** cairn_file over S3-compatible HTTP endpoints (Ceph's RADOS Gateway, AWS, MinIO...), through
** Debian's libcurl, which signs every request with AWS Signature V4 (CURLOPT_AWS_SIGV4).
**
** What is here: configuration (fields, environment, profile files), one request with retries
** (backoff with jitter on 5xx/429 and transport failures; errors name method, bucket, key, HTTP
** status and S3's error code), a pool of curl handles (connections are reused; threads take a
** handle each), ListObjectsV2 parsing, and the file's two caches (64 KiB blocks for small reads,
** 2 MiB stripes with sequential prefetch for large ones).
*/
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "cairn/objstore.h"
#include "cairn/sha256.h"

/* ------------------------------------------------------------------ counters */
static cairn_s3_counters gCount;
#define COUNT(f, n) __atomic_fetch_add(&gCount.f, (uint64_t)(n), __ATOMIC_RELAXED)

void cairn_s3_get_counters(cairn_s3_counters *p) {
  uint64_t *d = (uint64_t *)p, *s = (uint64_t *)&gCount;
  for (size_t i = 0; i < sizeof *p / sizeof(uint64_t); i++) d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

int cairn_s3_is_url(const char *z) { return z && strncmp(z, "s3://", 5) == 0; }

/* ------------------------------------------------------------------ configuration */
typedef struct S3Conn {
  char *zEndpoint; /* scheme://host[:port], no trailing slash */
  char *zRegion, *zAk, *zSk, *zToken;
  char *zBucket, *zPrefix; /* prefix: "" or "a/b/" */
  int bVirtual, nRetry;
  long timeoutMs;
  pthread_mutex_t mu; /* the handle pool */
  CURL **aFree;
  int nFree, nFreeAlloc;
} S3Conn;

static const char *envz(const char *zName) {
  const char *z = getenv(zName);
  return z && *z ? z : NULL;
}

/* Value of `key = value` in section [zSection] of an INI file (the AWS files), malloc'd. */
static char *iniGet(const char *zFile, const char *zSection, const char *zKey) {
  FILE *f = zFile ? fopen(zFile, "r") : NULL;
  if (!f) return NULL;
  char line[1024], *zOut = NULL;
  int in = 0;
  while (!zOut && fgets(line, sizeof line, f)) {
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    s[strcspn(s, "\r\n")] = 0;
    if (*s == '[') {
      char *e = strchr(s, ']');
      if (!e) continue;
      *e = 0;
      s++;
      if (strncmp(s, "profile ", 8) == 0) s += 8; /* ~/.aws/config spells it [profile NAME] */
      while (*s == ' ') s++;
      in = strcmp(s, zSection) == 0;
      continue;
    }
    if (!in) continue;
    char *eq = strchr(s, '=');
    if (!eq) continue;
    char *k = s, *ke = eq;
    while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
    if ((size_t)(ke - k) != strlen(zKey) || strncmp(k, zKey, (size_t)(ke - k)) != 0) continue;
    char *v = eq + 1;
    while (*v == ' ' || *v == '\t') v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) v[--n] = 0;
    zOut = strdup(v);
  }
  fclose(f);
  return zOut;
}

static char *homeFile(const char *zEnv, const char *zRel) {
  const char *z = envz(zEnv);
  if (z) return strdup(z);
  const char *h = envz("HOME");
  if (!h) return NULL;
  char *p = malloc(strlen(h) + strlen(zRel) + 2);
  if (p) sprintf(p, "%s/%s", h, zRel);
  return p;
}

static void connFree(S3Conn *c) {
  if (!c) return;
  for (int i = 0; i < c->nFree; i++) curl_easy_cleanup(c->aFree[i]);
  free(c->aFree);
  free(c->zEndpoint), free(c->zRegion), free(c->zAk), free(c->zSk), free(c->zToken);
  free(c->zBucket), free(c->zPrefix);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

static pthread_once_t gCurlOnce = PTHREAD_ONCE_INIT;
static void curlInit(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* s3://BUCKET[/REST] into a connection; *pzRest (may be NULL) gets REST ("" if none). */
static int connOpen(const char *zUrl, const cairn_s3_config *pCfg, S3Conn **pp, char **pzRest) {
  *pp = NULL;
  if (!cairn_s3_is_url(zUrl)) return cairn_seterr(CAIRN_MISUSE, "s3: '%s' is not an s3://BUCKET/KEY URL", zUrl ? zUrl : "");
  const char *b = zUrl + 5, *slash = strchr(b, '/');
  size_t nb = slash ? (size_t)(slash - b) : strlen(b);
  if (nb == 0 || nb > 255) return cairn_seterr(CAIRN_MISUSE, "s3: no bucket in '%s'", zUrl);
  pthread_once(&gCurlOnce, curlInit);
  cairn_s3_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (pCfg) cfg = *pCfg;
  S3Conn *c = calloc(1, sizeof *c);
  if (!c) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  pthread_mutex_init(&c->mu, NULL);
  const char *zProfile = cfg.zProfile ? cfg.zProfile : envz("AWS_PROFILE") ? envz("AWS_PROFILE") : "default";
  char *zCred = homeFile("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
  char *zConf = homeFile("AWS_CONFIG_FILE", ".aws/config");
#define PICK(field, zEnv1, zEnv2, zFile, zKey)                                          \
  do {                                                                                  \
    const char *v_ = field ? field : envz(zEnv1) ? envz(zEnv1) : (zEnv2) ? envz(zEnv2) : NULL; \
    out = v_ ? strdup(v_) : iniGet(zFile, zProfile, zKey);                              \
  } while (0)
  char *out;
  PICK(cfg.zEndpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", zConf, "endpoint_url");
  c->zEndpoint = out;
  PICK(cfg.zRegion, "AWS_REGION", "AWS_DEFAULT_REGION", zConf, "region");
  c->zRegion = out ? out : strdup("us-east-1");
  PICK(cfg.zAccessKey, "AWS_ACCESS_KEY_ID", NULL, zCred, "aws_access_key_id");
  c->zAk = out;
  PICK(cfg.zSecretKey, "AWS_SECRET_ACCESS_KEY", NULL, zCred, "aws_secret_access_key");
  c->zSk = out;
  PICK(cfg.zSessionToken, "AWS_SESSION_TOKEN", NULL, zCred, "aws_session_token");
  c->zToken = out;
#undef PICK
  free(zCred), free(zConf);
  int eAddr = cfg.eAddressing;
  const char *za = envz("CAIRN_S3_ADDRESSING");
  if (!eAddr && za) eAddr = strcmp(za, "virtual") == 0 ? 2 : strcmp(za, "path") == 0 ? 1 : 0;
  c->bVirtual = eAddr ? eAddr == 2 : c->zEndpoint == NULL;
  if (!c->zEndpoint) {
    char z[256];
    snprintf(z, sizeof z, "https://s3.%s.amazonaws.com", c->zRegion);
    c->zEndpoint = strdup(z);
  } else {
    size_t n = strlen(c->zEndpoint);
    while (n && c->zEndpoint[n - 1] == '/') c->zEndpoint[--n] = 0;
  }
  c->nRetry = cfg.nRetry > 0 ? cfg.nRetry : envz("CAIRN_S3_RETRIES") ? atoi(envz("CAIRN_S3_RETRIES")) : 8;
  c->timeoutMs = cfg.timeoutMs > 0 ? cfg.timeoutMs : envz("CAIRN_S3_TIMEOUT_MS") ? atol(envz("CAIRN_S3_TIMEOUT_MS")) : 120000;
  c->zBucket = strndup(b, nb);
  const char *zRest = slash ? slash + 1 : "";
  if (!c->zEndpoint || !c->zRegion || !c->zBucket) {
    connFree(c);
    return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  }
  if (!c->zAk || !c->zSk) {
    connFree(c);
    return cairn_seterr(CAIRN_MISUSE, "s3: no credentials for s3://%.*s: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                        "or a profile in ~/.aws/credentials (AWS_PROFILE)", (int)nb, b);
  }
  if (pzRest) *pzRest = strdup(zRest);
  *pp = c;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ one request */
static CURL *handleTake(S3Conn *c) {
  CURL *h = NULL;
  pthread_mutex_lock(&c->mu);
  if (c->nFree) h = c->aFree[--c->nFree];
  pthread_mutex_unlock(&c->mu);
  if (!h) h = curl_easy_init();
  else curl_easy_reset(h);
  return h;
}
static void handleGive(S3Conn *c, CURL *h) {
  pthread_mutex_lock(&c->mu);
  if (c->nFree == c->nFreeAlloc) {
    int n = c->nFreeAlloc ? c->nFreeAlloc * 2 : 8;
    CURL **a = realloc(c->aFree, sizeof *a * (size_t)n);
    if (!a) {
      pthread_mutex_unlock(&c->mu);
      curl_easy_cleanup(h);
      return;
    }
    c->aFree = a, c->nFreeAlloc = n;
  }
  c->aFree[c->nFree++] = h;
  pthread_mutex_unlock(&c->mu);
}

/* URI-encode z (S3's rules: unreserved bytes stay; '/' stays when bSlash). */
static void uriEncode(char *zOut, size_t nOut, const char *z, int bSlash) {
  static const char hex[] = "0123456789ABCDEF";
  size_t o = 0;
  for (; *z && o + 4 < nOut; z++) {
    unsigned char ch = (unsigned char)*z;
    if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
        ch == '.' || ch == '~' || (bSlash && ch == '/'))
      zOut[o++] = (char)ch;
    else zOut[o++] = '%', zOut[o++] = hex[ch >> 4], zOut[o++] = hex[ch & 15];
  }
  zOut[o] = 0;
}

typedef struct Buf {
  char *p;
  size_t n, cap;
  int bFixed; /* p is the caller's: never grown, excess is an error */
  /* (optional) told how many bytes of a 2xx answer have arrived, as they arrive (read plans
  ** stream a large GET into the chunk reads waiting for it) */
  void (*xArrived)(void *pArg, size_t nHave);
  void *pArrived;
  CURL *e; /* the transfer (set by request()) */
} Buf;

static size_t bodySink(char *p, size_t sz, size_t nm, void *arg) {
  Buf *b = arg;
  size_t n = sz * nm;
  if (b->n + n > b->cap) {
    if (b->bFixed) return 0; /* more than the range asked: fail the transfer */
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) return 0;
    b->p = q, b->cap = cap;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
  COUNT(nBytesIn, n); /* as they arrive: a streamed GET's reader may be done before the GET returns */
  if (b->xArrived) {
    long st = 0;
    curl_easy_getinfo(b->e, CURLINFO_RESPONSE_CODE, &st);
    if (st == 206) b->xArrived(b->pArrived, b->n); /* not an error body, nor a whole object */
  }
  return n;
}

typedef struct Src {
  const char *p;
  size_t n, at;
} Src;
static size_t bodySource(char *p, size_t sz, size_t nm, void *arg) {
  Src *s = arg;
  size_t n = sz * nm;
  if (n > s->n - s->at) n = s->n - s->at;
  memcpy(p, s->p + s->at, n);
  s->at += n;
  return n;
}
static int bodySeek(void *arg, curl_off_t off, int origin) {
  Src *s = arg;
  if (origin != SEEK_SET || off < 0 || (size_t)off > s->n) return CURL_SEEKFUNC_FAIL;
  s->at = (size_t)off;
  return CURL_SEEKFUNC_OK;
}

/* The text of <zTag>...</zTag> in an S3 XML error body, copied into z. */
static void xmlTag(const char *p, size_t n, const char *zTag, char *z, size_t nz) {
  char open[64];
  snprintf(open, sizeof open, "<%s>", zTag);
  z[0] = 0;
  const char *s = memmem(p, n, open, strlen(open));
  if (!s) return;
  s += strlen(open);
  const char *e = memchr(s, '<', (size_t)(p + n - s));
  if (!e) return;
  size_t k = (size_t)(e - s) < nz - 1 ? (size_t)(e - s) : nz - 1;
  memcpy(z, s, k);
  z[k] = 0;
}

static void sleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}
static unsigned jitterSeed(void) {
  static unsigned s;
  unsigned v = __atomic_add_fetch(&s, 0x9E3779B9u, __ATOMIC_RELAXED);
  v ^= (unsigned)time(NULL) ^ (unsigned)getpid();
  v ^= v >> 16, v *= 0x45d9f3bu, v ^= v >> 16;
  return v;
}

enum { REQ_GET, REQ_PUT, REQ_HEAD, REQ_DELETE };
static const char *const azMethod[] = {"GET", "PUT", "HEAD", "DELETE"};

typedef struct Req {
  int eMethod;
  const char *zKey;   /* full key within the bucket ("" for the bucket itself) */
  const char *zQuery; /* canonical query string (sorted, encoded) or NULL */
  const void *pBody;  /* PUT */
  size_t nBody;
  uint64_t iOff, nRange; /* GET: a range when nRange > 0 */
  int bCreateOnly;       /* PUT: If-None-Match: * */
  Buf *pOut;             /* GET: where the body goes */
  long status;           /* out */
  uint64_t nLength;      /* out: HEAD's Content-Length */
} Req;

/* Run one request with retries. A final HTTP status of 2xx is CAIRN_OK; 404 CAIRN_NOTFOUND;
** 412 on a create-only PUT CAIRN_EXISTS; anything else an error naming all it can. 206/200 for
** ranges are both fine (a store may answer a range that covers the object with 200). */
static int request(S3Conn *c, Req *r) {
  char zKeyEnc[3200], zUrl[4096], zSig[300], zUser[1024];
  uriEncode(zKeyEnc, sizeof zKeyEnc, r->zKey, 1);
  const char *zScheme = strstr(c->zEndpoint, "://");
  if (c->bVirtual && zScheme)
    snprintf(zUrl, sizeof zUrl, "%.*s://%s.%s/%s%s%s", (int)(zScheme - c->zEndpoint), c->zEndpoint, c->zBucket,
             zScheme + 3, zKeyEnc, r->zQuery ? "?" : "", r->zQuery ? r->zQuery : "");
  else
    snprintf(zUrl, sizeof zUrl, "%s/%s/%s%s%s", c->zEndpoint, c->zBucket, zKeyEnc, r->zQuery ? "?" : "",
             r->zQuery ? r->zQuery : "");
  snprintf(zSig, sizeof zSig, "aws:amz:%s:s3", c->zRegion);
  snprintf(zUser, sizeof zUser, "%s:%s", c->zAk, c->zSk);
  /* the payload's SHA-256 (signed: a body damaged on the way is refused by the store) */
  char zHash[100] = "x-amz-content-sha256: ";
  uint8_t h[32];
  cairn_sha256(r->pBody ? r->pBody : "", r->pBody ? r->nBody : 0, h);
  cairn_hex(h, 32, zHash + strlen(zHash));
  char zRange[80], zTok[2100];
  const char *zWhat = azMethod[r->eMethod];
  int rc = CAIRN_OK;
  unsigned seed = jitterSeed();
  char zErrBody[512] = "";
  CURLcode cc = CURLE_OK;
  for (int attempt = 0;; attempt++) {
    CURL *e = handleTake(c);
    if (!e) return cairn_seterr(CAIRN_NOMEM, "s3: cannot start a request");
    struct curl_slist *hdr = NULL;
    hdr = curl_slist_append(hdr, zHash);
    if (c->zToken) {
      snprintf(zTok, sizeof zTok, "x-amz-security-token: %s", c->zToken);
      hdr = curl_slist_append(hdr, zTok);
    }
    if (r->eMethod == REQ_GET && r->nRange) {
      snprintf(zRange, sizeof zRange, "Range: bytes=%llu-%llu", (unsigned long long)r->iOff,
               (unsigned long long)(r->iOff + r->nRange - 1));
      hdr = curl_slist_append(hdr, zRange);
    }
    if (r->bCreateOnly) hdr = curl_slist_append(hdr, "If-None-Match: *");
    Buf err = {0};
    Buf *pSink = r->pOut ? r->pOut : &err;
    if (r->pOut) r->pOut->n = 0, r->pOut->e = e; /* a retry starts over */
    Src src = {r->pBody, r->nBody, 0};
    curl_easy_setopt(e, CURLOPT_URL, zUrl);
    curl_easy_setopt(e, CURLOPT_AWS_SIGV4, zSig);
    curl_easy_setopt(e, CURLOPT_USERPWD, zUser);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    if (envz("CAIRN_S3_VERBOSE")) curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, c->timeoutMs);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L); /* a stalled transfer is a timeout */
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, bodySink);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, pSink);
    if (r->nRange >= ((uint64_t)1 << 20)) curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 262144L); /* fewer, larger writes */
    if (r->eMethod == REQ_PUT) {
      curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(e, CURLOPT_READFUNCTION, bodySource);
      curl_easy_setopt(e, CURLOPT_READDATA, &src);
      curl_easy_setopt(e, CURLOPT_SEEKFUNCTION, bodySeek);
      curl_easy_setopt(e, CURLOPT_SEEKDATA, &src);
      curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->nBody);
    } else if (r->eMethod == REQ_HEAD) curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    else if (r->eMethod == REQ_DELETE) curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    COUNT(nRequest, 1);
    if (r->eMethod == REQ_PUT) COUNT(nBytesOut, r->nBody);
    cc = curl_easy_perform(e);
    long st = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &st);
    if (r->eMethod == REQ_HEAD) {
      curl_off_t len = -1;
      curl_easy_getinfo(e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
      r->nLength = len > 0 ? (uint64_t)len : 0;
    }
    curl_slist_free_all(hdr);
    handleGive(c, e);
    r->status = cc == CURLE_OK ? st : 0;
    int transient = cc != CURLE_OK ? (cc != CURLE_WRITE_ERROR && cc != CURLE_OUT_OF_MEMORY && cc != CURLE_URL_MALFORMAT)
                                   : (st >= 500 || st == 429);
    if (cc == CURLE_OK && st >= 300) {
      Buf *eb = r->pOut && r->pOut->n ? r->pOut : &err;
      char zCode[128], zMsg[256];
      xmlTag(eb->p ? eb->p : "", eb->n, "Code", zCode, sizeof zCode);
      xmlTag(eb->p ? eb->p : "", eb->n, "Message", zMsg, sizeof zMsg);
      snprintf(zErrBody, sizeof zErrBody, "%s%s%s", zCode, zMsg[0] ? ": " : "", zMsg);
      if (r->pOut) r->pOut->n = 0;
    }
    free(err.p);
    if (!transient || attempt >= c->nRetry) break;
    COUNT(nRetry, 1);
    long cap = 100L << (attempt < 5 ? attempt : 5);
    if (cap > 2000) cap = 2000;
    seed = seed * 1103515245u + 12345u;
    sleepMs(cap / 2 + (long)(seed % (unsigned)(cap / 2 + 1))); /* "equal jitter" */
  }
  long st = r->status;
  char zWhere[1400];
  snprintf(zWhere, sizeof zWhere, "s3: %s s3://%s/%s", zWhat, c->zBucket, r->zKey);
  if (cc != CURLE_OK)
    rc = cairn_seterr(CAIRN_IOERR, "%s: %s (%s, after %d retries)", zWhere, curl_easy_strerror(cc), c->zEndpoint, c->nRetry);
  else if (st >= 200 && st < 300) rc = CAIRN_OK;
  else if (st == 404) rc = cairn_seterr(CAIRN_NOTFOUND, "%s: HTTP 404 %s", zWhere, zErrBody[0] ? zErrBody : "not found");
  else if (st == 412 && r->bCreateOnly) rc = cairn_seterr(CAIRN_EXISTS, "%s: exists already (HTTP 412)", zWhere);
  else if (st == 416) rc = cairn_seterr(CAIRN_RANGE, "%s: HTTP 416 range %llu+%llu not satisfiable", zWhere,
                                        (unsigned long long)r->iOff, (unsigned long long)r->nRange);
  else
    rc = cairn_seterr(CAIRN_IOERR, "%s: HTTP %ld%s%s%s", zWhere, st, zErrBody[0] ? " " : "", zErrBody,
                      st >= 500 || st == 429 ? " (after retries)" : st == 403 ? " (check the access key and secret)" : "");
  return rc;
}

/* ------------------------------------------------------------------ the object store */
typedef struct S3Store {
  cairn_objstore base;
  S3Conn *c;
} S3Store;

static char *fullKey(S3Conn *c, const char *zKey) {
  size_t np = strlen(c->zPrefix), nk = strlen(zKey);
  char *z = malloc(np + nk + 1);
  if (z) memcpy(z, c->zPrefix, np), memcpy(z + np, zKey, nk + 1);
  return z;
}

static int storeGet(cairn_objstore *s, const char *zKey, uint64_t iOff, uint64_t n, void **pp, size_t *pn) {
  S3Conn *c = ((S3Store *)s)->c;
  *pp = NULL, *pn = 0;
  char *zFull = fullKey(c, zKey);
  if (!zFull) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  Buf b = {0};
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_GET, r.zKey = zFull, r.pOut = &b;
  if (iOff || n != UINT64_MAX) r.iOff = iOff, r.nRange = n;
  if (r.nRange == 0 && n == 0) {
    free(zFull);
    *pp = cairn_malloc(1);
    return *pp ? CAIRN_OK : cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  }
  COUNT(nGet, 1);
  int rc = request(c, &r);
  free(zFull);
  if (rc == CAIRN_OK) {
    void *p = cairn_malloc(b.n ? b.n : 1);
    if (!p) rc = cairn_seterr(CAIRN_NOMEM, "s3: out of memory for %zu bytes", b.n);
    else memcpy(p, b.p, b.n), *pp = p, *pn = b.n;
  }
  free(b.p);
  return rc;
}

static int storePut(cairn_objstore *s, const char *zKey, const void *p, size_t n, int flags) {
  S3Conn *c = ((S3Store *)s)->c;
  char *zFull = fullKey(c, zKey);
  if (!zFull) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_PUT, r.zKey = zFull, r.pBody = p, r.nBody = n, r.bCreateOnly = (flags & CAIRN_OBJ_CREATE_ONLY) != 0;
  COUNT(nPut, 1);
  int rc = request(c, &r);
  free(zFull);
  return rc;
}

static int storeHead(cairn_objstore *s, const char *zKey, uint64_t *pn) {
  S3Conn *c = ((S3Store *)s)->c;
  char *zFull = fullKey(c, zKey);
  if (!zFull) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_HEAD, r.zKey = zFull;
  COUNT(nHead, 1);
  int rc = request(c, &r);
  free(zFull);
  if (rc == CAIRN_OK && pn) *pn = r.nLength;
  return rc;
}

static int storeDelete(cairn_objstore *s, const char *zKey) {
  S3Conn *c = ((S3Store *)s)->c;
  char *zFull = fullKey(c, zKey);
  if (!zFull) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_DELETE, r.zKey = zFull;
  COUNT(nDelete, 1);
  int rc = request(c, &r);
  free(zFull);
  return rc == CAIRN_NOTFOUND ? CAIRN_OK : rc;
}

/* XML entities of a key in a listing (&amp; &lt; &gt; &quot; &apos;) decoded in place. */
static void xmlUnescape(char *z) {
  static const char *const az[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
  char *o = z;
  while (*z) {
    int hit = 0;
    if (*z == '&')
      for (size_t i = 0; i < 5 && !hit; i++) {
        size_t n = strlen(az[i][0]);
        if (strncmp(z, az[i][0], n) == 0) *o++ = az[i][1][0], z += n, hit = 1;
      }
    if (!hit) *o++ = *z++;
  }
  *o = 0;
}

static int storeList(cairn_objstore *s, const char *zPrefix, cairn_objstore_each_fn xEach, void *pArg) {
  S3Conn *c = ((S3Store *)s)->c;
  char *zFull = fullKey(c, zPrefix);
  if (!zFull) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  size_t nStrip = strlen(c->zPrefix);
  char zPre[3200], zTok[3200] = "", zQuery[7000];
  uriEncode(zPre, sizeof zPre, zFull, 0);
  int rc = CAIRN_OK;
  for (;;) {
    char zTokEnc[3200];
    uriEncode(zTokEnc, sizeof zTokEnc, zTok, 0);
    /* canonical order (SigV4 signs the query as sent): continuation-token < list-type < prefix */
    if (zTok[0]) snprintf(zQuery, sizeof zQuery, "continuation-token=%s&list-type=2&prefix=%s", zTokEnc, zPre);
    else snprintf(zQuery, sizeof zQuery, "list-type=2&prefix=%s", zPre);
    Buf b = {0};
    Req r;
    memset(&r, 0, sizeof r);
    r.eMethod = REQ_GET, r.zKey = "", r.zQuery = zQuery, r.pOut = &b;
    COUNT(nList, 1);
    rc = request(c, &r);
    if (rc) {
      cairn_seterr(rc, "s3: LIST s3://%s/%s*: %s", c->zBucket, zFull, cairn_errmsg());
      free(b.p);
      break;
    }
    const char *p = b.p ? b.p : "", *end = p + b.n;
    for (;;) {
      const char *k = memmem(p, (size_t)(end - p), "<Contents>", 10);
      if (!k) break;
      const char *ke = memmem(k, (size_t)(end - k), "</Contents>", 11);
      if (!ke) break;
      char zKey[2048], zSize[32];
      xmlTag(k, (size_t)(ke - k), "Key", zKey, sizeof zKey);
      xmlTag(k, (size_t)(ke - k), "Size", zSize, sizeof zSize);
      xmlUnescape(zKey);
      p = ke + 11;
      if (strlen(zKey) < nStrip) continue;
      if ((rc = xEach(pArg, zKey + nStrip, strtoull(zSize, NULL, 10))) != 0) break;
    }
    char zTrunc[16];
    xmlTag(b.p ? b.p : "", b.n, "IsTruncated", zTrunc, sizeof zTrunc);
    xmlTag(b.p ? b.p : "", b.n, "NextContinuationToken", zTok, sizeof zTok);
    free(b.p);
    if (rc || strcmp(zTrunc, "true") != 0 || !zTok[0]) break;
  }
  free(zFull);
  return rc;
}

static int storeClose(cairn_objstore *s) {
  connFree(((S3Store *)s)->c);
  free(s);
  return CAIRN_OK;
}

static const cairn_objstore_methods s3StoreMethods = {1, storeGet, storePut, storeHead, storeList, storeDelete, storeClose};

int cairn_s3_open(const char *zUrl, const cairn_s3_config *pCfg, cairn_objstore **pp) {
  *pp = NULL;
  S3Conn *c;
  char *zRest;
  int rc = connOpen(zUrl, pCfg, &c, &zRest);
  if (rc) return rc;
  size_t n = zRest ? strlen(zRest) : 0;
  c->zPrefix = malloc(n + 2);
  S3Store *s = calloc(1, sizeof *s);
  if (!c->zPrefix || !s) {
    free(zRest), free(s), connFree(c);
    return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  }
  memcpy(c->zPrefix, zRest, n + 1);
  if (n && c->zPrefix[n - 1] != '/') c->zPrefix[n] = '/', c->zPrefix[n + 1] = 0;
  free(zRest);
  s->base.pMethods = &s3StoreMethods;
  s->c = c;
  *pp = &s->base;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ a read-only file */
#define BLK_BITS 16 /* small reads: 64 KiB blocks */
#ifndef STR_BITS
#define STR_BITS 21 /* large reads: 2 MiB stripes */
#endif
#define SMALL_READ (1u << BLK_BITS)
#ifndef PREFETCH
#define PREFETCH 3          /* stripes fetched ahead of a sequential large read */
#endif
#define CACHE_MAX_BLK 1024  /* 64 MiB of blocks */
#define CACHE_MAX_STR 48    /* 96 MiB of stripes */

#define CAIRN_S3_MIN(a, b) ((a) < (b) ? (a) : (b))

typedef struct Slot {
  uint64_t idx;
  int tier;   /* 0 block, 1 stripe */
  int state;  /* 0 free, 1 in flight, 2 ready, 3 failed */
  uint64_t tick;
  char *p;
  size_t n;
  int rc;
} Slot;

typedef struct S3File {
  cairn_file base;
  S3Conn *c;
  char *zKey;
  uint64_t nSize;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  Slot *aSlot;
  size_t nSlot, nSlotAlloc;
  size_t nLive[2];
  uint64_t tick;
  int nFlight; /* background prefetches running */
  int64_t lastStripe;
  struct Plan *pPlan; /* the last read plan (xWillRead), under mu */
  int nPlanFlight;    /* GETs of read plans running (atomic; also of plans replaced since) */
} S3File;

static Slot *slotFind(S3File *f, int tier, uint64_t idx) {
  for (size_t i = 0; i < f->nSlot; i++)
    if (f->aSlot[i].state && f->aSlot[i].tier == tier && f->aSlot[i].idx == idx) return &f->aSlot[i];
  return NULL;
}

/* A new in-flight slot (evicting the oldest ready one of its tier when full); NULL: no memory. */
static Slot *slotNew(S3File *f, int tier, uint64_t idx) {
  size_t max = tier ? CACHE_MAX_STR : CACHE_MAX_BLK;
  Slot *s = NULL;
  if (f->nLive[tier] >= max) {
    for (size_t i = 0; i < f->nSlot; i++) {
      Slot *t = &f->aSlot[i];
      if (t->tier == tier && (t->state == 2 || t->state == 3) && (!s || t->tick < s->tick)) s = t;
    }
    if (s) free(s->p), s->p = NULL, s->state = 0, f->nLive[tier]--;
  }
  if (!s)
    for (size_t i = 0; i < f->nSlot && !s; i++)
      if (f->aSlot[i].state == 0) s = &f->aSlot[i];
  if (!s) {
    if (f->nSlot == f->nSlotAlloc) {
      size_t n = f->nSlotAlloc ? f->nSlotAlloc * 2 : 64;
      Slot *a = realloc(f->aSlot, sizeof *a * n);
      if (!a) return NULL;
      f->aSlot = a, f->nSlotAlloc = n;
    }
    s = &f->aSlot[f->nSlot++];
  }
  memset(s, 0, sizeof *s);
  s->idx = idx, s->tier = tier, s->state = 1, s->tick = ++f->tick;
  f->nLive[tier]++;
  return s;
}

/* One range GET into a fresh buffer. */
static int fileGet(S3File *f, uint64_t iOff, size_t n, char **pp) {
  char *p = malloc(n ? n : 1);
  if (!p) return cairn_seterr(CAIRN_NOMEM, "s3: out of memory for %zu bytes", n);
  Buf b = {p, 0, n, 1, NULL, NULL, NULL};
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_GET, r.zKey = f->zKey, r.iOff = iOff, r.nRange = n, r.pOut = &b;
  COUNT(nGet, 1);
  int rc = request(f->c, &r);
  if (rc == CAIRN_OK && b.n != n)
    rc = cairn_seterr(CAIRN_IOERR_SHORT_READ, "s3: GET s3://%s/%s: %zu bytes at %llu, expected %zu", f->c->zBucket, f->zKey, b.n,
                      (unsigned long long)iOff, n);
  if (rc) free(p), p = NULL;
  *pp = p;
  return rc;
}

/* Fetch the run of in-flight slots [i0, i1) of one tier with one GET, then split it. */
static void fetchRun(S3File *f, int tier, uint64_t i0, uint64_t i1) {
  int bits = tier ? STR_BITS : BLK_BITS;
  uint64_t a = i0 << bits, b = i1 << bits;
  if (b > f->nSize) b = f->nSize;
  char *p = NULL;
  int rc = fileGet(f, a, (size_t)(b - a), &p);
  pthread_mutex_lock(&f->mu);
  for (uint64_t i = i0; i < i1; i++) {
    Slot *s = slotFind(f, tier, i);
    if (!s || s->state != 1) continue;
    if (rc) s->state = 3, s->rc = rc;
    else {
      uint64_t sa = i << bits, sb = CAIRN_S3_MIN(sa + ((uint64_t)1 << bits), f->nSize);
      s->n = (size_t)(sb - sa);
      s->p = malloc(s->n ? s->n : 1);
      if (s->p) memcpy(s->p, p + (sa - a), s->n), s->state = 2;
      else s->state = 3, s->rc = CAIRN_NOMEM;
    }
  }
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
  free(p);
}

typedef struct Prefetch {
  S3File *f;
  uint64_t i0, i1;
} Prefetch;
static void *prefetchMain(void *arg) {
  Prefetch *q = arg;
  fetchRun(q->f, 1, q->i0, q->i1);
  pthread_mutex_lock(&q->f->mu);
  q->f->nFlight--;
  pthread_cond_broadcast(&q->f->cv);
  pthread_mutex_unlock(&q->f->mu);
  free(q);
  return NULL;
}

/* Start a thread fetching stripes [i0, i1) (f->mu held); 0 if none could start. */
static int prefetchStart(S3File *f, uint64_t i0, uint64_t i1) {
  Prefetch *q = malloc(sizeof *q);
  if (!q) return 0;
  q->f = f, q->i0 = i0, q->i1 = i1;
  pthread_attr_t at;
  pthread_t th;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  int ok = pthread_create(&th, &at, prefetchMain, q) == 0;
  pthread_attr_destroy(&at);
  if (ok) f->nFlight++;
  else free(q);
  return ok;
}

typedef struct Part {
  S3File *f;
  uint64_t off;
  char *dst;
  size_t n;
  int rc;
  char zErr[600];
} Part;
static void *partMain(void *arg) {
  Part *q = arg;
  char *p = NULL;
  q->rc = fileGet(q->f, q->off, q->n, &p);
  if (q->rc == CAIRN_OK) memcpy(q->dst, p, q->n), free(p);
  else snprintf(q->zErr, sizeof q->zErr, "%s", cairn_errmsg()); /* messages are per thread */
  return NULL;
}
static int bigRead(S3File *f, void *p, size_t n, uint64_t iOff) {
  size_t part = (size_t)8 << 20, nPart = (n + part - 1) / part;
  Part *ap = calloc(nPart, sizeof *ap);
  pthread_t *at = calloc(nPart, sizeof *at);
  char *bStarted = calloc(nPart, 1);
  int rc = CAIRN_OK;
  if (!ap || !at || !bStarted) rc = cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  for (size_t i = 0; rc == CAIRN_OK && i < nPart; i++) {
    ap[i].f = f, ap[i].off = iOff + i * part, ap[i].dst = (char *)p + i * part;
    ap[i].n = i + 1 < nPart ? part : n - i * part;
    if (i + 1 < nPart && pthread_create(&at[i], NULL, partMain, &ap[i]) == 0) bStarted[i] = 1;
    else partMain(&ap[i]); /* the last part on this thread (or any a thread could not take) */
  }
  for (size_t i = 0; ap && i < nPart; i++) {
    if (bStarted && bStarted[i]) pthread_join(at[i], NULL);
    if (rc == CAIRN_OK && ap[i].rc) rc = cairn_seterr(ap[i].rc, "%s", ap[i].zErr);
  }
  free(ap), free(at), free(bStarted);
  return rc;
}

/* ------------------------------------------------------------------ read plans
** The HDF5 reader names the chunks it is about to read (xWillRead). They are coalesced into runs
** (cairn_s3_plan: neighbours whose gap is small, up to a run size), and the runs are fetched
** ahead, each with one range GET, at most nConn at once and at most about 2 x nConn runs' bytes
** held, in address order, which is the order the core's workers take the chunks in. A chunk read
** waits only until its own bytes of its run have arrived (the GET streams into the run's buffer),
** copies them out and, when the run's last chunk is read, the buffer is freed: the dataset is
** never held twice. Reads the plan does not name, or whose run failed, take the ordinary path
** (whose errors name the object and status). Knobs (benches): CAIRN_S3_PLAN=0 (no plans),
** CAIRN_S3_CONNS (4), CAIRN_S3_RUN_MIB (16; the run size is total/nConn within [1 MiB, this]),
** CAIRN_S3_GAP (largest gap read through, 131072 bytes). */
size_t cairn_s3_plan(const uint64_t *aRange, size_t nRange, uint64_t maxGap, uint64_t maxRun, size_t *aFirst) {
  size_t nRun = 0;
  uint64_t runOff = 0, end = 0;
  for (size_t i = 0; i < nRange; i++) {
    uint64_t off = aRange[2 * i], len = aRange[2 * i + 1];
    int join = nRun && off >= end && off - end <= maxGap && off + len - runOff <= maxRun;
    if (!join) aFirst[nRun++] = i, runOff = off;
    end = off + len;
  }
  return nRun;
}

typedef struct PlanRun {
  uint64_t off;
  size_t n, nRecv; /* bytes of the run; arrived so far */
  size_t nWant;    /* the least nRecv a reader waits for (SIZE_MAX: none): arrivals wake readers only then */
  size_t i0, i1;   /* its ranges */
  size_t nLeft;    /* of them not yet read */
  int state;       /* 0 waiting, 1 in flight, 2 arrived, 3 failed */
  char *p;
} PlanRun;

typedef struct Plan {
  S3File *f;
  uint64_t *aRange; /* (offset, length) pairs, ascending */
  char *abRead;     /* per range: read already (a second read takes the ordinary path) */
  size_t nRange;
  PlanRun *aRun;
  size_t nRun, iNext; /* the next run to start */
  int nConn, nFlight, nRef; /* nRef: the file (until replaced), flights and readers copying */
  uint64_t nHeld, maxHeld;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} Plan;

static void planUnref(Plan *q) { /* q->mu held; unlocks (and frees q when the last reference goes) */
  int last = --q->nRef == 0;
  pthread_mutex_unlock(&q->mu);
  if (!last) return;
  for (size_t i = 0; i < q->nRun; i++) free(q->aRun[i].p);
  free(q->aRun), free(q->aRange), free(q->abRead);
  pthread_mutex_destroy(&q->mu), pthread_cond_destroy(&q->cv);
  free(q);
}

static void runRelease(Plan *q, PlanRun *u) { /* q->mu held */
  if (u->nLeft == 0 && u->state >= 2 && u->p) free(u->p), u->p = NULL, q->nHeld -= u->n;
}

typedef struct Flight {
  Plan *q;
  PlanRun *u;
} Flight;

static void runArrived(void *pArg, size_t nHave) {
  Flight *t = pArg;
  pthread_mutex_lock(&t->q->mu);
  PlanRun *u = t->u;
  if (nHave > u->nRecv) u->nRecv = nHave; /* a retry rewrites the same bytes from 0 */
  if (u->nRecv >= u->nWant) u->nWant = SIZE_MAX, pthread_cond_broadcast(&t->q->cv);
  pthread_mutex_unlock(&t->q->mu);
}

static void planPump(Plan *q);
static void *flightMain(void *arg) {
  Flight *t = arg;
  Plan *q = t->q;
  PlanRun *u = t->u;
  Buf b = {u->p, 0, u->n, 1, runArrived, t, NULL};
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_GET, r.zKey = q->f->zKey, r.iOff = u->off, r.nRange = u->n, r.pOut = &b;
  COUNT(nGet, 1);
  COUNT(nPlanRun, 1);
  int rc = request(q->f->c, &r);
  pthread_mutex_lock(&q->mu);
  u->state = rc == CAIRN_OK && b.n == u->n ? 2 : 3;
  if (u->state == 3) free(u->p), u->p = NULL, q->nHeld -= u->n; /* its readers take the ordinary path */
  q->nFlight--;
  runRelease(q, u);
  planPump(q);
  pthread_cond_broadcast(&q->cv);
  S3File *f = q->f;
  planUnref(q);
  free(t);
  __atomic_fetch_sub(&f->nPlanFlight, 1, __ATOMIC_ACQ_REL); /* last: fileClose may free f */
  return NULL;
}

/* Start run u (q->mu held); 0 when it could not (no memory, no thread): it stays waiting. */
static int runStart(Plan *q, PlanRun *u) {
  Flight *t = malloc(sizeof *t);
  u->p = malloc(u->n);
  pthread_attr_t at;
  pthread_t th;
  int ok = t && u->p && pthread_attr_init(&at) == 0;
  if (ok) {
    t->q = q, t->u = u;
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    u->state = 1, q->nFlight++, q->nRef++, q->nHeld += u->n;
    __atomic_fetch_add(&q->f->nPlanFlight, 1, __ATOMIC_ACQ_REL);
    ok = pthread_create(&th, &at, flightMain, t) == 0;
    pthread_attr_destroy(&at);
    if (!ok) u->state = 0, q->nFlight--, q->nRef--, q->nHeld -= u->n, __atomic_fetch_sub(&q->f->nPlanFlight, 1, __ATOMIC_ACQ_REL);
  }
  if (!ok) free(t), free(u->p), u->p = NULL;
  return ok;
}

/* Start the next waiting runs while connections and the byte cap allow (q->mu held). */
static void planPump(Plan *q) {
  while (q->iNext < q->nRun && q->nFlight < q->nConn) {
    PlanRun *u = &q->aRun[q->iNext];
    if (u->state == 0) {
      if (q->nHeld && q->nHeld + u->n > q->maxHeld) break;
      if (!runStart(q, u)) break;
    }
    q->iNext++;
  }
}

static uint64_t envU64(const char *zName, uint64_t dflt) {
  const char *z = envz(zName);
  return z ? strtoull(z, NULL, 10) : dflt;
}

static int fileWillRead(cairn_file *pf, const uint64_t *aRange, size_t nRange) {
  S3File *f = (S3File *)pf;
  const char *zOn = envz("CAIRN_S3_PLAN");
  if (zOn && strcmp(zOn, "0") == 0) return CAIRN_OK;
  uint64_t nConn = envU64("CAIRN_S3_CONNS", 4), maxRun = envU64("CAIRN_S3_RUN_MIB", 16) << 20, gap = envU64("CAIRN_S3_GAP", 131072);
  if (nConn < 1) nConn = 1;
  if (nConn > 32) nConn = 32;
  if (maxRun < ((uint64_t)1 << 20)) maxRun = (uint64_t)1 << 20;
  if (maxRun > ((uint64_t)256 << 20)) maxRun = (uint64_t)256 << 20;
  Plan *q = calloc(1, sizeof *q);
  if (!q) return CAIRN_NOMEM;
  q->f = f, q->nConn = (int)nConn, q->nRef = 1;
  q->aRange = malloc(sizeof(uint64_t) * 2 * (nRange ? nRange : 1));
  q->abRead = calloc(nRange ? nRange : 1, 1);
  size_t *aFirst = malloc(sizeof(size_t) * (nRange ? nRange : 1));
  uint64_t total = 0;
  /* the ranges a run can take, inside the object (larger ones are the ordinary path's) */
  for (size_t i = 0; q->aRange && i < nRange; i++) {
    uint64_t off = aRange[2 * i], len = aRange[2 * i + 1];
    if (len == 0 || len > maxRun || off >= f->nSize || len > f->nSize - off) continue;
    if (q->nRange && off < q->aRange[2 * q->nRange - 2] + q->aRange[2 * q->nRange - 1]) continue; /* not ascending */
    q->aRange[2 * q->nRange] = off, q->aRange[2 * q->nRange + 1] = len, q->nRange++;
    total += len;
  }
  /* runs of about total/nConn (all connections busy), within [1 MiB, maxRun] */
  uint64_t runBytes = (total + nConn - 1) / nConn;
  if (runBytes < ((uint64_t)1 << 20)) runBytes = (uint64_t)1 << 20;
  if (runBytes > maxRun) runBytes = maxRun;
  q->nRun = q->aRange && q->abRead && aFirst && q->nRange > 1 ? cairn_s3_plan(q->aRange, q->nRange, gap, runBytes, aFirst) : 0;
  q->aRun = q->nRun ? calloc(q->nRun, sizeof *q->aRun) : NULL;
  if (!q->aRun) q->nRun = 0;
  for (size_t k = 0; k < q->nRun; k++) {
    PlanRun *u = &q->aRun[k];
    u->i0 = aFirst[k], u->i1 = k + 1 < q->nRun ? aFirst[k + 1] : q->nRange;
    u->off = q->aRange[2 * u->i0];
    u->n = (size_t)(q->aRange[2 * (u->i1 - 1)] + q->aRange[2 * (u->i1 - 1) + 1] - u->off);
    u->nLeft = u->i1 - u->i0;
    u->nWant = SIZE_MAX;
    if (u->n > q->maxHeld / 2) q->maxHeld = 2 * (uint64_t)u->n;
  }
  free(aFirst);
  q->maxHeld *= nConn; /* about two runs per connection */
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->cv, NULL);
  pthread_mutex_lock(&q->mu);
  planPump(q);
  pthread_mutex_unlock(&q->mu);
  pthread_mutex_lock(&f->mu);
  Plan *old = f->pPlan;
  f->pPlan = q->nRun ? q : NULL;
  pthread_mutex_unlock(&f->mu);
  if (!q->nRun) pthread_mutex_lock(&q->mu), planUnref(q);
  if (old) pthread_mutex_lock(&old->mu), old->iNext = old->nRun, planUnref(old); /* its flights finish on their own */
  return CAIRN_OK;
}

/* A read the plan names: 1 served, 0 not (the ordinary path reads it). */
static int planRead(S3File *f, void *p, size_t n, uint64_t iOff) {
  pthread_mutex_lock(&f->mu);
  Plan *q = f->pPlan;
  if (q) pthread_mutex_lock(&q->mu), q->nRef++;
  pthread_mutex_unlock(&f->mu);
  if (!q) return 0;
  /* the range: the last whose offset is <= iOff */
  size_t lo = 0, hi = q->nRange;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (q->aRange[2 * mid] <= iOff) lo = mid;
    else hi = mid;
  }
  int served = 0;
  if (q->nRange && q->aRange[2 * lo] == iOff && q->aRange[2 * lo + 1] == n && !q->abRead[lo]) {
    q->abRead[lo] = 1;
    size_t a = 0, b = q->nRun; /* its run */
    while (b - a > 1) {
      size_t mid = a + (b - a) / 2;
      if (q->aRun[mid].i0 <= lo) a = mid;
      else b = mid;
    }
    PlanRun *u = &q->aRun[a];
    if (u->state == 0) runStart(q, u); /* a read ahead of the window: its run now */
    size_t need = (size_t)(iOff + n - u->off);
    while (u->state == 1 && u->nRecv < need) {
      if (need < u->nWant) u->nWant = need;
      pthread_cond_wait(&q->cv, &q->mu);
    }
    if ((u->state == 1 || u->state == 2) && u->nRecv >= need) {
      pthread_mutex_unlock(&q->mu);
      memcpy(p, u->p + (iOff - u->off), n);
      pthread_mutex_lock(&q->mu);
      served = 1;
      COUNT(nPlanHit, 1);
    }
    u->nLeft--;
    runRelease(q, u);
    planPump(q);
  }
  planUnref(q);
  return served;
}

static void planDrop(S3File *f) { /* at close: start no more runs, wait for the flights of all plans */
  Plan *q = f->pPlan;
  f->pPlan = NULL;
  if (q) pthread_mutex_lock(&q->mu), q->iNext = q->nRun, planUnref(q);
  while (__atomic_load_n(&f->nPlanFlight, __ATOMIC_ACQUIRE)) sleepMs(1);
}

static int fileRead(cairn_file *pf, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  S3File *f = (S3File *)pf;
  size_t want = n;
  if (iOff >= f->nSize) want = 0;
  else if (n > f->nSize - iOff) want = (size_t)(f->nSize - iOff);
  memset((char *)p + want, 0, n - want);
  if (pnRead) *pnRead = want;
  else if (want < n)
    return cairn_seterr(CAIRN_IOERR_SHORT_READ, "s3: s3://%s/%s: read of %zu bytes at %llu past its end (%llu bytes)", f->c->zBucket,
                        f->zKey, n, (unsigned long long)iOff, (unsigned long long)f->nSize);
  if (want == 0) return CAIRN_OK;
  if (want == n && planRead(f, p, n, iOff)) return CAIRN_OK;
  int tier = want >= SMALL_READ;
  int bits = tier ? STR_BITS : BLK_BITS;
  uint64_t i0 = iOff >> bits, i1 = ((iOff + want - 1) >> bits) + 1;
  /* A very large read (a contiguous dataset, or the core's split of one): straight range GETs
  ** of 8 MiB in parallel, not cached (it would only evict what metadata reads need). */
  if (tier && i1 - i0 > 8) return bigRead(f, p, want, iOff);
  pthread_mutex_lock(&f->mu);
  uint64_t j1 = i1;
  if (tier && f->lastStripe >= 0 && (uint64_t)f->lastStripe + 1 >= i0) j1 = i1 + PREFETCH; /* sequential: read ahead */
  uint64_t nIdx = (f->nSize + ((uint64_t)1 << bits) - 1) >> bits;
  if (j1 > nIdx) j1 = nIdx;
  if (tier) f->lastStripe = (int64_t)(i1 - 1);
  /* Mark what is missing as in flight (so no other thread fetches it too); the caller fetches
  ** the runs it needs itself (one GET each), a thread fetches the prefetch run. */
  uint64_t aRun[16][2];
  int nRun = 0;
  uint64_t rs = UINT64_MAX;
  for (uint64_t i = i0; i <= j1; i++) {
    int missing = 0;
    if (i < j1) {
      Slot *s = slotFind(f, tier, i);
      if (s && s->state == 3) s->state = 0, f->nLive[tier]--, s = NULL; /* failed before: again */
      missing = !s && slotNew(f, tier, i) != NULL;
    }
    if (missing && rs == UINT64_MAX) rs = i;
    int endRun = rs != UINT64_MAX && (!missing || i + 1 == j1 || i + 1 == i1);
    if (!endRun) continue;
    uint64_t re = missing ? i + 1 : i;
    if (rs < i1) {
      if (nRun < 16) aRun[nRun][0] = rs, aRun[nRun][1] = re, nRun++;
    } else if (!prefetchStart(f, rs, re)) {
      for (uint64_t k = rs; k < re; k++) { /* no thread: leave it for a later read */
        Slot *t = slotFind(f, tier, k);
        if (t && t->state == 1) t->state = 0, f->nLive[tier]--;
      }
    }
    rs = UINT64_MAX;
  }
  pthread_mutex_unlock(&f->mu);
  for (int k = 0; k < nRun; k++) fetchRun(f, tier, aRun[k][0], aRun[k][1]);
  /* copy out, waiting for slots other threads are fetching */
  int rc = CAIRN_OK;
  pthread_mutex_lock(&f->mu);
  for (uint64_t i = i0; i < i1 && rc == CAIRN_OK; i++) {
    Slot *s;
    while ((s = slotFind(f, tier, i)) != NULL && s->state == 1) pthread_cond_wait(&f->cv, &f->mu);
    if (!s) { /* evicted before we got to it (a cache smaller than one read): fetch it alone */
      pthread_mutex_unlock(&f->mu);
      uint64_t a = i << bits, b = CAIRN_S3_MIN(a + ((uint64_t)1 << bits), f->nSize);
      char *q = NULL;
      rc = fileGet(f, a, (size_t)(b - a), &q);
      if (rc == CAIRN_OK) {
        uint64_t from = iOff > a ? iOff : a, to = CAIRN_S3_MIN(iOff + want, b);
        memcpy((char *)p + (from - iOff), q + (from - a), (size_t)(to - from));
        free(q);
      }
      pthread_mutex_lock(&f->mu);
      continue;
    }
    if (s->state == 3) {
      rc = s->rc;
      s->state = 0, f->nLive[tier]--; /* try again next time */
      break;
    }
    s->tick = ++f->tick;
    uint64_t a = i << bits, from = iOff > a ? iOff : a, to = CAIRN_S3_MIN(iOff + want, a + s->n);
    memcpy((char *)p + (from - iOff), s->p + (from - a), (size_t)(to - from));
  }
  pthread_mutex_unlock(&f->mu);
  return rc;
}

static int fileWrite(cairn_file *f, const void *p, size_t n, uint64_t iOff) {
  return cairn_seterr(CAIRN_READONLY, "s3: s3://%s/%s is opened read-only", ((S3File *)f)->c->zBucket, ((S3File *)f)->zKey);
}
static int fileSize(cairn_file *f, uint64_t *pn) {
  *pn = ((S3File *)f)->nSize;
  return CAIRN_OK;
}
static int fileTruncate(cairn_file *f, uint64_t n) { return fileWrite(f, NULL, 0, n); }
static int fileSync(cairn_file *f) { return CAIRN_OK; }
static int fileClose(cairn_file *pf) {
  S3File *f = (S3File *)pf;
  pthread_mutex_lock(&f->mu);
  while (f->nFlight) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  planDrop(f);
  for (size_t i = 0; i < f->nSlot; i++) free(f->aSlot[i].p);
  free(f->aSlot);
  pthread_mutex_destroy(&f->mu);
  pthread_cond_destroy(&f->cv);
  connFree(f->c);
  free(f->zKey);
  free(f);
  return CAIRN_OK;
}
/* Version 3 (read plans), without locks: an object in S3 has no locks (it is read-only here, and S3 objects are replaced
** whole, so a reader never sees a half-written one). */
static const cairn_file_methods s3FileMethods = {3, fileRead, fileWrite, fileSize, fileTruncate, fileSync, fileClose, NULL, NULL, NULL, fileWillRead};

int cairn_s3_file_open(const char *zUrl, const cairn_s3_config *pCfg, cairn_file **pp) {
  *pp = NULL;
  S3Conn *c;
  char *zKey;
  int rc = connOpen(zUrl, pCfg, &c, &zKey);
  if (rc) return rc;
  c->zPrefix = strdup("");
  if (!zKey || !zKey[0]) {
    free(zKey), connFree(c);
    return cairn_seterr(CAIRN_MISUSE, "s3: no key in '%s' (s3://BUCKET/KEY)", zUrl);
  }
  S3File *f = calloc(1, sizeof *f);
  if (!f) {
    free(zKey), connFree(c);
    return cairn_seterr(CAIRN_NOMEM, "s3: out of memory");
  }
  f->base.pMethods = &s3FileMethods;
  f->c = c, f->zKey = zKey, f->lastStripe = -1;
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  Req r;
  memset(&r, 0, sizeof r);
  r.eMethod = REQ_HEAD, r.zKey = zKey;
  COUNT(nHead, 1);
  rc = request(c, &r);
  if (rc) {
    fileClose(&f->base);
    return rc;
  }
  f->nSize = r.nLength;
  *pp = &f->base;
  return CAIRN_OK;
}
