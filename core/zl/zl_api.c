/*
** 2026-11-29
**
** core/zl/zl_api.c - profile names of the OpenZL-format codec.
*/
#include "zl/zl_int.h"

static const char *const kProfiles[] = {"serial", "u8", "le-u16", "le-u32", "le-u64", "le-i64", "csv"};

int cairn_zl_profile_from_name(const char *zName) {
  if (!zName) return -1;
  for (int i = 0; i < (int)CAIRN_ARRAY_SIZE(kProfiles); i++)
    if (strcmp(zName, kProfiles[i]) == 0) return i;
  return -1;
}
const char *cairn_zl_profile_name(int profile) {
  return profile >= 0 && profile < (int)CAIRN_ARRAY_SIZE(kProfiles) ? kProfiles[profile] : NULL;
}
