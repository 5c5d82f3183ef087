/*
** 2026-11-29
**
** cairn/zl.h - format-aware compression that writes and reads OpenZL frames (format version
** 26): typed inputs go through graphs of transforms (field split, delta, transpose, tokenize,
** bit-pack...) ending in entropy/LZ stages, and OpenZL's own decoder reads cairn's frames.
**
** Buffer in, buffer out. Profiles name the input's type, as OpenZL's CLI does:
**   "serial" bytes, "u8", "le-u16", "le-u32", "le-u64", "le-i64" (little-endian integers;
**   any size: a tail shorter than the width is stored beside the integers) and "csv" (text table).
** Errors: CAIRN_MISUSE (NULL, unknown profile), CAIRN_RANGE
** (output buffer too small), CAIRN_CORRUPT (malformed frame; the message names the byte
** offset), CAIRN_CHECKSUM (a frame checksum did not match), CAIRN_UNSUPPORTED (a valid frame
** that uses a codec or feature cairn does not implement: custom codecs, dictionary bundles,
** unknown sizes; several outputs and string outputs: cairn_zl_decompress_multi).
*/
#ifndef CAIRN_ZL_H
#define CAIRN_ZL_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cairn_zl_profile {
  CAIRN_ZL_SERIAL = 0,
  CAIRN_ZL_U8 = 1,
  CAIRN_ZL_LE_U16 = 2,
  CAIRN_ZL_LE_U32 = 3,
  CAIRN_ZL_LE_U64 = 4,
  CAIRN_ZL_LE_I64 = 5,
  CAIRN_ZL_CSV = 6
} cairn_zl_profile;

/* Profile from its name ("le-u32"...), or -1 if unknown. */
CAIRN_API int cairn_zl_profile_from_name(const char *zName);
CAIRN_API const char *cairn_zl_profile_name(int profile);

/* Largest frame cairn_zl_compress can write for n input bytes. */
CAIRN_API size_t cairn_zl_compress_bound(size_t n);
/* Compress p[0..n) as the given profile into out[0..nOut); *pnOut receives the frame size. */
CAIRN_API int cairn_zl_compress(int profile, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
/* Same with a level 1..22 (cairn_zl_compress uses 19, smallest frames). From 6 up it is the
** level of the zstd stages; 1..5 trade ratio for speed: their zstd stages run a notch lower
** (1-2 at zstd -2/-1, 3-5 at zstd 1-3) and at 1..3 the graph selector estimates candidates by
** entropy instead of trial zstd runs. The selector itself decides on a prefix. */
CAIRN_API int cairn_zl_compress_level(int profile, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
/* Fixed-width records: each record is nField fields of aWidth[i] bytes (1..4096 each, at most
** CAIRN_ZL_MAX_FIELDS fields); a partial last record is stored as a tail. Each field is compressed as
** its own column (1/2/4/8-byte fields as little-endian integers). level 0 = 19. */
#define CAIRN_ZL_MAX_FIELDS 64
CAIRN_API int cairn_zl_compress_records(const uint32_t *aWidth, int nField, int level, const void *p, size_t n, void *out,
                              size_t nOut, size_t *pnOut);
/* One named graph for the whole input instead of the profile's selection (OpenZL's standard
** graphs by name): store, zstd, lz4, huffman, entropy (Huffman or stored), flatpack (<= 128
** distinct bytes pay), bitpack (the profile's integers in the fewest bits). fse and field_lz:
** CAIRN_UNSUPPORTED (cairn decodes them, writes neither). A graph that cannot apply falls back
** to stored bytes. graph 0 ("auto") = cairn_zl_compress_level. level 0 = 19. */
enum {
  CAIRN_ZL_GRAPH_AUTO = 0, CAIRN_ZL_GRAPH_STORE, CAIRN_ZL_GRAPH_ZSTD, CAIRN_ZL_GRAPH_LZ4, CAIRN_ZL_GRAPH_HUFFMAN,
  CAIRN_ZL_GRAPH_FSE, CAIRN_ZL_GRAPH_ENTROPY, CAIRN_ZL_GRAPH_FIELD_LZ, CAIRN_ZL_GRAPH_FLATPACK, CAIRN_ZL_GRAPH_BITPACK
};
CAIRN_API int cairn_zl_graph_from_name(const char *zName); /* -1 if unknown */
CAIRN_API const char *cairn_zl_graph_name(int graph);
CAIRN_API int cairn_zl_compress_graph(int profile, int graph, int level, const void *p, size_t n, void *out, size_t nOut,
                                      size_t *pnOut);
/* The decompressed size a frame declares (read from its header only). */
CAIRN_API int cairn_zl_decompressed_size(const void *p, size_t n, uint64_t *pnSize);
/* Decode the single frame p[0..n) (all of it) into out[0..nOut); *pnOut = bytes written. */
CAIRN_API int cairn_zl_decompress(const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
/* A reusable decompression context for decoding many frames: the same results and errors as
** cairn_zl_decompress, without the per-call set-up of a zstd decoder (frames with zstd stages).
** It keeps only that zstd context between calls (a fixed ~96 KB, whatever the frames; stream
** buffers are freed at the end of each call). An error leaves it usable. One context per
** thread at a time. create returns NULL when out of memory; a NULL ctx in
** cairn_zl_decompress_dctx means a temporary one (= cairn_zl_decompress); free(NULL) is a no-op. */
typedef struct cairn_zl_dctx cairn_zl_dctx;
CAIRN_API cairn_zl_dctx *cairn_zl_dctx_create(void);
CAIRN_API void cairn_zl_dctx_free(cairn_zl_dctx *ctx);
CAIRN_API int cairn_zl_decompress_dctx(cairn_zl_dctx *ctx, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);

/* Frames of several typed outputs (OpenZL's multi-input compression), or of a string output.
** Each output: its type (1 serial, 2 struct, 4 numeric, 8 string, as OpenZL's ZL_Type), element
** width (0 for strings and for an empty struct/numeric output), element count (strings for a
** string output), content bytes p[0..nb) and, for strings, their lengths aLen[0..n); declared
** is the size the frame header gives. *paOut is an array of *pnOut outputs (at most 64),
** released with cairn_zl_outputs_free. A frame that names a dictionary bundle fails with
** CAIRN_UNSUPPORTED naming the bundle's ID (hex). */
typedef struct cairn_zl_output {
  int type;
  uint32_t width;
  uint64_t n, nb, declared;
  uint8_t *p;
  uint32_t *aLen;
} cairn_zl_output;
CAIRN_API int cairn_zl_decompress_multi(const void *p, size_t n, cairn_zl_output **paOut, unsigned *pnOut);
CAIRN_API void cairn_zl_outputs_free(cairn_zl_output *aOut, unsigned nOut);

/* A frame's anatomy without decoding its data: format version, flags, outputs (type, size),
** dictionary bundle ID, comment; per chunk its offset and size, the decoder graph (each decoder's
** codec ID and name, header size, input and regenerated stream numbers) and every stream (stored
** or regenerated, its size, type, element width and count, and which decoder produced and which
** consumes it). Regenerated sizes need the chunk decoded: they are given when it decodes (a
** chunk that does not says why in "error"). json != 0: JSON, else text for people. *pz is
** allocated (cairn_free), *pn its length (may be NULL). */
CAIRN_API int cairn_zl_info(const void *p, size_t n, int json, char **pz, size_t *pn);

/*
** Streams between host files in bounded memory (a few segments of 2 MiB per thread plus their
** working streams, whatever the file size). Compression writes one chunk per 2 MiB segment
** (compressed in parallel through the host's parallel-for); the frame is
** the same as cairn_zl_compress's. Decompression reads frames of any chunk size up to 64 MiB
** (CAIRN_LIMIT beyond). pnIn/pnOut (may be NULL) receive byte counts; xProgress may be NULL.
*/
typedef void (*cairn_zl_progress_fn)(void *pArg, uint64_t nDone, uint64_t nTotal);
CAIRN_API int cairn_zl_compress_file(int profile, int level, cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress,
                           void *pArg, uint64_t *pnIn, uint64_t *pnOut); /* level 0 = 19 */
CAIRN_API int cairn_zl_compress_graph_file(int profile, int graph, int level, cairn_file *in, cairn_file *out,
                                           cairn_zl_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut);
CAIRN_API int cairn_zl_compress_records_file(const uint32_t *aWidth, int nField, int level, cairn_file *in, cairn_file *out,
                                   cairn_zl_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut);
CAIRN_API int cairn_zl_decompress_file(cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress, void *pArg, uint64_t *pnIn,
                             uint64_t *pnOut);

#ifdef __cplusplus
}
#endif
#endif
