/*
** 2026-12-02
**
** cairn/gate.h - deciding what of a conversation is worth remembering: the decision gate (is
** this text trivial, too short, too thin to save?) and the save strategies that an observer
** applies to each exchange (every exchange, on a semantic shift, on importance), saving what
** passes into a memory store (cairn/mem.h) through cairn_mem_add.
**
**   cairn_gate_result r;
**   cairn_gate_check(NULL, "ok thanks", 9, &r);         // r.save 0, r.reason CAIRN_GATE_TRIVIAL
**
**   cairn_gate *g;
**   cairn_gate_config cfg = {0};
**   cfg.strategy = CAIRN_SAVE_ON_SHIFT;                  // save when the topic moves
**   cairn_gate_open(&cfg, &g);
**   cairn_exchange x = {0};
**   x.zUser = "I moved to Lisbon in May"; x.zAssistant = "Nice! How do you like it?";
**   cairn_observe_result o;
**   cairn_gate_observe(g, &x, mem, &o);                 // mem NULL: decide only, save nothing
**   cairn_gate_close(g);
**
** The gate's rules, in order (the first that applies decides):
**   empty        no letter or digit at all                                     -> skip
**   too long     more bytes than maxBytes (a memory store refuses it anyway)  -> skip
**   trivial      at most trivialMaxWords words, every one an acknowledgement or a function
**                word and at least one acknowledgement ("ok", "yes please", "thank you so
**                much", "sounds good", "lol")                                  -> skip
**   short        fewer than minBytes bytes (spaces at both ends not counted), or fewer than
**                minContentWords content words                                 -> skip
**   low content  content words / words below minContentRatio ("it is what it is") -> skip
**   pass                                                                       -> save
** A word is a run of letters, digits and non-ASCII bytes; content words are those that are
** neither acknowledgements nor function words (the lists are English; other scripts count as
** content). Words are counted over the first scanBytes bytes only, so a huge text costs
** O(scanBytes), not O(n). Case-insensitive for ASCII.
**
** Everything here is pure computation on the caller's thread; a cairn_gate is not safe to use
** from two threads at once, cairn_gate_check is (it keeps no state).
*/
#ifndef CAIRN_GATE_H
#define CAIRN_GATE_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why the gate decided as it did (cairn_gate_result.reason). */
#define CAIRN_GATE_PASS        0
#define CAIRN_GATE_EMPTY       1
#define CAIRN_GATE_TOO_LONG    2
#define CAIRN_GATE_TRIVIAL     3
#define CAIRN_GATE_SHORT       4
#define CAIRN_GATE_LOW_CONTENT 5

/* Save strategies (cairn_gate_config.strategy). */
#define CAIRN_SAVE_EVERY         0 /* every exchange whose texts pass the gate */
#define CAIRN_SAVE_ON_SHIFT      1 /* when the exchange's embedding is far from the recent window */
#define CAIRN_SAVE_ON_IMPORTANCE 2 /* when the exchange's importance reaches a threshold */

typedef struct cairn_gate_config {
  /* The gate (0 = the default in brackets): */
  uint32_t minBytes;        /* [12] */
  uint32_t minContentWords; /* [2] */
  float minContentRatio;    /* [0.25]; negative: the ratio rule is off */
  uint32_t trivialMaxWords; /* [6] */
  uint32_t maxBytes;        /* [CAIRN_MEM_MAX_TEXT] */
  uint32_t scanBytes;       /* [65536] */
  int noGate;               /* 1: every non-empty text passes (the strategies still apply) */
  /* The strategies: */
  int strategy;              /* CAIRN_SAVE_* [EVERY] */
  float shiftThreshold;      /* [0.5] cosine distance (1 - cosine) from the window's centroid */
  uint32_t window;           /* [8] exchanges in the recent window, 1..1024 */
  float importanceThreshold; /* [0.5] */
  uint32_t dim;              /* embeddings of the shift strategy; [CAIRN_MEM_DEFAULT_DIM] (the
                             ** built-in embedder's when an exchange brings none) */
} cairn_gate_config;

typedef struct cairn_gate_result {
  int save;          /* 1: worth saving */
  int reason;        /* CAIRN_GATE_* */
  uint32_t nBytes;   /* bytes, spaces at both ends not counted */
  uint32_t nWords;   /* words in the first scanBytes bytes */
  uint32_t nContent; /* of those, content words */
  uint32_t nAck;     /* of those, acknowledgements */
  float ratio;       /* nContent / nWords (0 when there are no words) */
} cairn_gate_result;

/* The gate on zText[0..nText) (zText may be NULL when nText is 0) with pCfg's thresholds (NULL
** = defaults). Errors only for misuse (CAIRN_MISUSE: NULL text with nText > 0, NULL pOut). */
CAIRN_API int cairn_gate_check(const cairn_gate_config *pCfg, const char *zText, size_t nText, cairn_gate_result *pOut);
/* "pass", "empty", "too long", "trivial", "short", "low content" (NULL for other values). */
CAIRN_API const char *cairn_gate_reason_name(int reason);

/* ---- the observer: strategies over a conversation ---- */
typedef struct cairn_gate cairn_gate;

/* One exchange of a conversation. Either text may be NULL (an exchange with one side). */
typedef struct cairn_exchange {
  const char *zUser, *zAssistant;
  /* Optional embeddings of each side (cfg.dim floats), for the shift strategy and the saved
  ** memories (when the store has that dimension); NULL: the built-in embedder's. */
  const float *aUserEmbedding, *aAssistantEmbedding;
  uint32_t nEmbedding;
  float importance;   /* the caller's value for the importance strategy and the saved memories;
                      ** NaN or < 0: estimated from the gate's counts (see below) */
  const char *zSession;
  const char *zUserRole, *zAssistantRole; /* NULL: "user" and "assistant" */
  int64_t eventMs;    /* 0 = now */
} cairn_exchange;

/* Why the observer decided as it did (cairn_observe_result.why). */
#define CAIRN_OBSERVE_EVERY       0 /* strategy every-exchange: saved what passed the gate */
#define CAIRN_OBSERVE_SHIFT       1 /* the topic moved: shift >= threshold */
#define CAIRN_OBSERVE_NO_SHIFT    2 /* the topic stayed: nothing saved */
#define CAIRN_OBSERVE_IMPORTANT   3 /* importance >= threshold */
#define CAIRN_OBSERVE_UNIMPORTANT 4 /* importance < threshold: nothing saved */
#define CAIRN_OBSERVE_GATED       5 /* the strategy would save, but neither side passed the gate */

typedef struct cairn_observe_result {
  int save;            /* 1: something is (or, without a store, would be) saved */
  int why;             /* CAIRN_OBSERVE_* */
  float shift;         /* distance from the window (on-shift; 1 for the first exchange), else NaN */
  float importance;    /* the importance used (given or estimated) */
  cairn_gate_result user, assistant; /* the gate on each side (reason CAIRN_GATE_EMPTY when absent) */
  int saveUser, saveAssistant;       /* which sides are (would be) saved */
  uint64_t userId, assistantId;      /* ids of the saved memories (0 = not saved) */
} cairn_observe_result;

/* Create an observer (pCfg NULL = defaults). Errors: CAIRN_MISUSE / CAIRN_RANGE naming the
** field (unknown strategy, window beyond 1..1024, dim too large, a NaN threshold). */
CAIRN_API int cairn_gate_open(const cairn_gate_config *pCfg, cairn_gate **ppGate);
CAIRN_API void cairn_gate_close(cairn_gate *pGate); /* NULL is a no-op */
/*
** Apply the strategy and the gate to one exchange. The importance estimate, when the caller
** gives none, is ratio * min(1, nContent / 8) of the better side, in [0, 1]. The shift is
** 1 - cosine between the exchange's embedding (the sum of its sides', normalised) and the mean of
** the last `window` exchanges' embeddings; every exchange observed joins the window, saved or not.
** With pMem, each side that is to be saved is added (cairn_mem_add, tier 0, role, session,
** importance, event time; the embedding given when the store's dimension matches), user first;
** durable after cairn_mem_commit. If an add fails, the observer's window is unchanged and what
** was added of this exchange stays added (the store's own rule: an add is atomic, two are not):
** pOut->userId says so. Without pMem nothing is saved and pOut says what would be.
*/
CAIRN_API int cairn_gate_observe(cairn_gate *pGate, const cairn_exchange *pEx, cairn_mem *pMem, cairn_observe_result *pOut);
/* "every", "shift", "no shift", "important", "unimportant", "gated" (NULL for other values). */
CAIRN_API const char *cairn_observe_why_name(int why);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_GATE_H */
