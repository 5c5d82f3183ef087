/*
** 2026-12-02
**
** core/h5/format.h - the HDF5 on-disk format as both the reader (r_*.c, h5int.h) and the writer
** (w_*.c, h5w.h) speak it, spelled once: the file signature and the structure signatures, the
** object-header message type ids and datatype class ids by name, the two checksums (lookup3 over
** metadata, Fletcher-32 over chunks), the object-header prefix and the message framing, and
** address/length decoding (a bounds-checked cursor). The reference is the HDF5 File Format
** Specification 3.0; section numbers below are its own.
**
** Everything a hot path uses is inline (the reader's small open + read + close is measured: see
** core/common/internal.h): the prefix and framing decoders compile to the loads and stores the
** reader's header loop spelled itself before. Nothing here raises an error: the decoders say
** what they found and each caller words its own message (the reader's and the writer's differ,
** and tests see them).
*/
#ifndef CAIRN_H5_FORMAT_H
#define CAIRN_H5_FORMAT_H

#include "common/internal.h"
#include "hash/lookup3.h"

/* The undefined address (all bits set, whatever the size of offsets): a decoded address field
** of all ones becomes this. */
#define H5_UNDEF ((uint64_t)-1)

/* ---------------------------------------------------------------- signatures */
/* The file signature (spec III.A, at offset 0, 512, 1024, ... of the file). */
#define H5_SIGNATURE "\211HDF\r\n\032\n"
#define H5_SIGNATURE_LEN 8
/* The 4-byte signatures metadata structures start with. */
#define H5_SIG_OHDR "OHDR" /* version-2 object header (IV.A.1.b) */
#define H5_SIG_OCHK "OCHK" /* its continuation chunk */
#define H5_SIG_TREE "TREE" /* version-1 B-tree node (III.A.1) */
#define H5_SIG_BTHD "BTHD" /* version-2 B-tree header, internal and leaf nodes (III.A.2) */
#define H5_SIG_BTIN "BTIN"
#define H5_SIG_BTLF "BTLF"
#define H5_SIG_SNOD "SNOD" /* symbol table node (III.B) */
#define H5_SIG_HEAP "HEAP" /* local heap (III.D) */
#define H5_SIG_GCOL "GCOL" /* global heap collection (III.E) */
#define H5_SIG_FRHP "FRHP" /* fractal heap header, direct and indirect blocks (III.G) */
#define H5_SIG_FHDB "FHDB"
#define H5_SIG_FHIB "FHIB"
#define H5_SIG_SMTB "SMTB" /* shared object header message table (III.H) */
#define H5_SIG_FAHD "FAHD" /* fixed array header and data block (VII.B) */
#define H5_SIG_FADB "FADB"
#define H5_SIG_EAHD "EAHD" /* extensible array header, index, super and data blocks (VII.C) */
#define H5_SIG_EAIB "EAIB"
#define H5_SIG_EASB "EASB"
#define H5_SIG_EADB "EADB"

/* ---------------------------------------------------------------- ids */
/* Object header message types (IV.A.2). */
enum {
  H5_MSG_NIL = 0x00,
  H5_MSG_DATASPACE = 0x01,
  H5_MSG_LINKINFO = 0x02,
  H5_MSG_DATATYPE = 0x03,
  H5_MSG_FILL_OLD = 0x04, /* fill value, old form */
  H5_MSG_FILLVALUE = 0x05,
  H5_MSG_LINK = 0x06,
  H5_MSG_EFL = 0x07, /* external data files */
  H5_MSG_LAYOUT = 0x08,
  H5_MSG_BOGUS = 0x09,
  H5_MSG_GROUPINFO = 0x0A,
  H5_MSG_FILTER = 0x0B, /* filter pipeline */
  H5_MSG_ATTR = 0x0C,
  H5_MSG_COMMENT = 0x0D,
  H5_MSG_MTIME_OLD = 0x0E,
  H5_MSG_SHMESG = 0x0F, /* shared message table (superblock extension) */
  H5_MSG_CONT = 0x10,   /* header continuation */
  H5_MSG_SYMTAB = 0x11, /* symbol table (old-style group) */
  H5_MSG_MTIME = 0x12,
  H5_MSG_BTREEK = 0x13, /* B-tree 'K' values (superblock extension) */
  H5_MSG_DRVINFO = 0x14,
  H5_MSG_AINFO = 0x15,    /* attribute info */
  H5_MSG_REFCOUNT = 0x16, /* object reference count */
};
/* Message flags (the byte after the size). */
#define H5_MSGF_CONSTANT 0x01
#define H5_MSGF_SHARED 0x02
/* Version-2 object header flags (IV.A.1.b). */
#define H5_OHDR_SIZE_MASK 0x03   /* width of chunk 0's size: 1 << (flags & 3) bytes */
#define H5_OHDR_CRT_TRACK 0x04   /* messages carry a creation order (6-byte message headers) */
#define H5_OHDR_CRT_INDEX 0x08
#define H5_OHDR_ATTR_PHASE 0x10  /* max compact / min dense attribute counts stored */
#define H5_OHDR_TIMES 0x20       /* four 32-bit times stored */

/* Datatype classes (the 4-bit class field of the datatype message, IV.A.2.d). */
enum {
  H5T_FIXED = 0, H5T_FLOAT = 1, H5T_TIME = 2, H5T_STRING = 3, H5T_BITFIELD = 4, H5T_OPAQUE = 5,
  H5T_COMPOUND = 6, H5T_REFERENCE = 7, H5T_ENUM = 8, H5T_VLEN = 9, H5T_ARRAY = 10
};

/* Chunk index types (layout v4 numbering; a v3 layout uses H5IDX_BTREE1). */
enum { H5IDX_BTREE1 = 0, H5IDX_SINGLE = 1, H5IDX_IMPLICIT = 2, H5IDX_FARRAY = 3, H5IDX_EARRAY = 4, H5IDX_BTREE2 = 5 };

/* ---------------------------------------------------------------- checksums */
/* Metadata checksums: lookup3 (Bob Jenkins' hashlittle, seed 0) of p[0..n), stored in the 4
** bytes after them. */
static inline int cairnH5ChecksumOk(const uint8_t *p, size_t n) { return cairnGetLE32(p + n) == cairnLookup3(p, n, 0); }
static inline void cairnH5ChecksumPut(uint8_t *p, size_t n) { cairnPutLE32(p + n, cairnLookup3(p, n, 0)); }
/* The reader's check: CAIRN_CHECKSUM naming zWhat at addr (stored and computed values) when
** p[0..n) does not match the 4 bytes that follow (format.c). */
int cairnH5Checksum(const uint8_t *p, size_t n, uint64_t addr, const char *zWhat);
/* Fletcher-32 as libhdf5 computes it for the fletcher32 filter (id 3): 16-bit big-endian
** words, an odd last byte as the high half of a word, both sums start at 0 and are reduced mod
** 65535, result sum2 << 16 | sum1 (an all-zero chunk sums to 0, as libhdf5 stores it). */
uint32_t cairnH5Fletcher32(const uint8_t *p, size_t n);

/* ---------------------------------------------------------------- v1 chunk B-tree nodes */
/* The keys of a v1 chunk B-tree node are not checksummed in HDF5's format, and one flipped
** bit in a key makes its chunk unreachable (read back as fill, with success) or moves it. So
** the reader and the writer check each node's body p (n children: n+1 keys of 8 + 8 (rank+1)
** bytes, each child's key followed by an so-byte address) as they read it: the n+1 keys ascend
** strictly (a child's key is its first chunk's offset; the last is a right bound: libhdf5
** writes the last chunk's offset with the element size as the final coordinate, cairn's writer
** offset + chunk dims); child keys are multiples of aChunk with a zero element coordinate; the
** node's first key is not before lo and its last child's key is before hi (the parent's keys
** around it; NULL at the root). A multiple-of-chunk flip breaks the order with a neighbour or the bound.
** Returns NULL, or what is wrong (format.c). */
const char *cairnH5ChunkNodeCheck(const uint8_t *p, uint32_t n, uint32_t rank, const uint64_t *aChunk, unsigned so, const uint8_t *lo,
                                  const uint8_t *hi);

/* ---------------------------------------------------------------- addresses and lengths */
/* An address of so bytes (1..8) at p: all ones is H5_UNDEF. */
static inline uint64_t cairnH5GetAddr(const uint8_t *p, unsigned so) {
  if (so == 8) return cairnGetLE64(p); /* all ones is H5_UNDEF as it is */
  uint64_t v = cairnGetLEn(p, so);
  return v == ((uint64_t)1 << (8 * so)) - 1 ? H5_UNDEF : v;
}

/* A cursor over a bounded buffer: reads past the end set the error flag and return 0. */
typedef struct H5Cur {
  const uint8_t *p, *end;
  const uint8_t *start;
  uint64_t addr; /* file address of start, for messages */
  int bad;
} H5Cur;
static inline void cairnH5Cur(H5Cur *c, const uint8_t *p, size_t n, uint64_t addr) {
  c->p = c->start = p;
  c->end = p + n;
  c->addr = addr;
  c->bad = 0;
}
static inline int cairnH5Has(H5Cur *c, size_t n) {
  if ((size_t)(c->end - c->p) < n) { c->bad = 1; return 0; }
  return 1;
}
static inline uint64_t cairnH5U(H5Cur *c, unsigned n) {
  if (!cairnH5Has(c, n)) return 0;
  uint64_t v = cairnGetLEn(c->p, n);
  c->p += n;
  return v;
}
static inline uint8_t cairnH5U8(H5Cur *c) { return (uint8_t)cairnH5U(c, 1); }
static inline void cairnH5Skip(H5Cur *c, size_t n) { if (cairnH5Has(c, n)) c->p += n; }
static inline uint64_t cairnH5Off(const H5Cur *c) { return c->addr + (uint64_t)(c->p - c->start); }
/* An address field of so bytes (H5_UNDEF when all ones, or past the end: then bad is set). */
static inline uint64_t cairnH5CurAddr(H5Cur *c, unsigned so) {
  if (!cairnH5Has(c, so)) return H5_UNDEF;
  uint64_t v = cairnH5GetAddr(c->p, so);
  c->p += so;
  return v;
}

/* ---------------------------------------------------------------- object headers */
/* The prefix of an object header (IV.A.1): version 1 (16 bytes: version 1, reserved, message
** count, reference count, chunk 0's size, padding) or version 2 ("OHDR", version 2, flags,
** optional times and attribute phase counts, chunk 0's size in 1/2/4/8 bytes). */
typedef struct H5OhdrPrefix {
  uint8_t version; /* 1 or 2 */
  uint8_t flags;   /* v2: H5_OHDR_* (0 for v1) */
  uint16_t maxCompactAttr, minDenseAttr; /* v2 with H5_OHDR_ATTR_PHASE, else 0 */
  uint32_t nRef;   /* v1: the reference count (0 for v2) */
  uint32_t iMsgs;  /* offset of chunk 0's messages from the header's address */
  uint32_t nFrame; /* bytes of each message's header: 8 (v1), 4 or 6 (v2, creation order) */
  uint64_t nMsgs;  /* bytes of chunk 0's messages (v2: the lookup3 checksum follows them) */
} H5OhdrPrefix;
enum {
  H5_PREFIX_OK = 0,
  H5_PREFIX_NONE,    /* neither "OHDR" nor version byte 1: no object header here */
  H5_PREFIX_VERSION, /* "OHDR" with a version other than 2 */
  H5_PREFIX_SHORT    /* p[0..n) ends inside the prefix */
};
/* Decode the prefix at p[0..n) (n >= 16 for a v1 header to decode). Returns H5_PREFIX_*. */
static inline int cairnH5OhdrPrefix(const uint8_t *p, size_t n, H5OhdrPrefix *h) {
  if (n >= 4 && memcmp(p, H5_SIG_OHDR, 4) == 0) {
    if (n < 6) return H5_PREFIX_SHORT;
    h->version = p[4];
    if (p[4] != 2) return H5_PREFIX_VERSION;
    uint8_t flags = p[5];
    size_t i = 6 + ((flags & H5_OHDR_TIMES) ? 16 : 0) + ((flags & H5_OHDR_ATTR_PHASE) ? 4 : 0);
    unsigned nb = 1u << (flags & H5_OHDR_SIZE_MASK);
    if (i + nb > n) return H5_PREFIX_SHORT;
    h->flags = flags;
    h->maxCompactAttr = (flags & H5_OHDR_ATTR_PHASE) ? cairnGetLE16(p + i - 4) : 0;
    h->minDenseAttr = (flags & H5_OHDR_ATTR_PHASE) ? cairnGetLE16(p + i - 2) : 0;
    h->nRef = 0;
    h->nMsgs = cairnGetLEn(p + i, nb);
    h->iMsgs = (uint32_t)(i + nb);
    h->nFrame = (flags & H5_OHDR_CRT_TRACK) ? 6 : 4;
    return H5_PREFIX_OK;
  }
  if (n < 1 || p[0] != 1) {
    h->version = n ? p[0] : 0;
    return H5_PREFIX_NONE;
  }
  if (n < 16) return H5_PREFIX_SHORT;
  h->version = 1;
  h->flags = 0;
  h->maxCompactAttr = h->minDenseAttr = 0;
  h->nRef = cairnGetLE32(p + 4);
  h->nMsgs = cairnGetLE32(p + 8);
  h->iMsgs = 16;
  h->nFrame = 8;
  return H5_PREFIX_OK;
}

/* The header of one message (IV.A.1): v1 type u16, size u16, flags u8, 3 reserved; v2 type u8,
** size u16, flags u8, then the creation order u16 when the header tracks it (nFrame 6). */
typedef struct H5Frame {
  uint32_t type, size;
  uint8_t flags;
  uint16_t crt; /* creation order (nFrame 6), else 0 */
} H5Frame;
/* Decode the message header at p (nFrame bytes there, checked by the caller). Inline: with v1
** and nFrame constant it is three loads. */
static inline void cairnH5FrameGet(const uint8_t *p, int v1, size_t nFrame, H5Frame *m) {
  if (v1) {
    m->type = cairnGetLE16(p);
    m->size = cairnGetLE16(p + 2);
    m->flags = p[4];
    m->crt = 0;
  } else {
    m->type = p[0];
    m->size = cairnGetLE16(p + 1);
    m->flags = p[3];
    m->crt = nFrame == 6 ? cairnGetLE16(p + 4) : 0;
  }
}
/* Encode a v2 message header (nFrame 4, or 6 with the creation order). */
static inline void cairnH5FramePut(uint8_t *p, size_t nFrame, uint8_t type, uint16_t size, uint8_t flags, uint16_t crt) {
  p[0] = type;
  cairnPutLE16(p + 1, size);
  p[3] = flags;
  if (nFrame == 6) cairnPutLE16(p + 4, crt);
}

#endif /* CAIRN_H5_FORMAT_H */
