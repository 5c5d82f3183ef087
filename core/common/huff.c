/*
** 2026-11-30
**
** core/common/huff.c - code lengths of a length-limited Huffman code, for the encoders that
** write one: the deflate encoder (core/codec/deflate_enc.c, 15 and 7 bits) and the zl codec's
** Huffman stage (core/zl/zl_ent.c, 11 bits).
*/
#include "common/internal.h"

/* Heap sort of at most 288 keys, inline: qsort's callback per comparison showed in profiles
** of 16 KiB chunks, where every block builds three codes. */
static void sortKeys(uint64_t *a, unsigned n) {
  for (unsigned i = n / 2; i-- > 0;) {
    unsigned j = i;
    uint64_t v = a[j];
    for (unsigned c; (c = 2 * j + 1) < n; j = c) {
      if (c + 1 < n && a[c + 1] > a[c]) c++;
      if (a[c] <= v) break;
      a[j] = a[c];
    }
    a[j] = v;
  }
  for (unsigned end = n; end-- > 1;) {
    uint64_t v = a[end];
    a[end] = a[0];
    unsigned j = 0;
    for (unsigned c; (c = 2 * j + 1) < end; j = c) {
      if (c + 1 < end && a[c + 1] > a[c]) c++;
      if (a[c] <= v) break;
      a[j] = a[c];
    }
    a[j] = v;
  }
}
void cairnHuffLengths(const uint32_t *freq, unsigned n, unsigned maxLen, uint8_t *len) {
  uint64_t key[288];
  uint32_t w[2 * 288];
  uint16_t par[2 * 288];
  uint8_t depth[2 * 288];
  unsigned m = 0, count[16] = {0};
  for (unsigned i = 0; i < n; i++) {
    len[i] = 0;
    if (freq[i]) key[m++] = ((uint64_t)freq[i] << 16) | i;
  }
  for (unsigned i = 0; i < n && m < 2; i++)
    if (!freq[i]) key[m++] = ((uint64_t)1 << 16) | i; /* (key order fixed by the sort) */
  sortKeys(key, m);
  for (unsigned i = 0; i < m; i++) w[i] = (uint32_t)(key[i] >> 16);
  /* two queues: leaves (sorted) and internal nodes (made in increasing weight order) */
  unsigned li = 0, ii = m;
  for (unsigned k = m; k < 2 * m - 1; k++) {
    unsigned a, b;
    a = (li < m && (ii >= k || w[li] <= w[ii])) ? li++ : ii++;
    b = (li < m && (ii >= k || w[li] <= w[ii])) ? li++ : ii++;
    w[k] = w[a] + w[b];
    par[a] = par[b] = (uint16_t)k;
  }
  depth[2 * m - 2] = 0;
  for (int k = (int)(2 * m) - 3; k >= 0; k--) depth[k] = (uint8_t)(depth[par[k]] + 1);
  for (unsigned i = 0; i < m; i++) count[depth[i] > maxLen ? maxLen : depth[i]]++;
  /* clamped leaves overfill the code: move a shorter leaf down one level, pairing it with a
  ** leaf from the deepest level, until the Kraft sum is exactly one again */
  uint32_t kraft = 0;
  for (unsigned l = 1; l <= maxLen; l++) kraft += count[l] << (maxLen - l);
  while (kraft > (1u << maxLen)) {
    unsigned l = maxLen - 1;
    while (count[l] == 0) l--;
    count[l]--;
    count[l + 1] += 2;
    count[maxLen]--;
    kraft--;
  }
  /* rarest symbols get the longest codes */
  unsigned i = 0;
  for (unsigned l = maxLen; l >= 1; l--)
    for (unsigned c = count[l]; c; c--) len[key[i++] & 0xffff] = (uint8_t)l;
}
