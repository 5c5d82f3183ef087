/*
** 2026-11-29
**
** cli/cli.c - the cairn command table (one row per command and subcommand: name, family,
** synopsis, options, help text, handler), its dispatcher and help, and the helpers every
** command uses (messages, progress bar). Runs natively and as cairn.wasm under any WASI
** preview1 runtime (files through preopened directories).
*/
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cliFail(const char *zCmd, int rc) {
  const char *z = cairn_errmsg();
  fprintf(stderr, "cairn: %s: %s\n", zCmd, z[0] ? z : cairn_errstr(rc));
  return 1;
}

int cliUsage(const char *zCmd, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  fprintf(stderr, "cairn: %s: ", zCmd);
  vfprintf(stderr, zFmt, ap);
  if (strcmp(zCmd, "help") == 0) fprintf(stderr, " (see 'cairn help')\n");
  else fprintf(stderr, " (see 'cairn help %s')\n", zCmd);
  va_end(ap);
  return 2;
}

static int gProgressShown;
void cliProgress(void *pArg, uint64_t nDone, uint64_t nTotal) {
  static int64_t lastNs;
  const char *zLabel = pArg ? (const char *)pArg : "";
  if (!isatty(2) || nTotal < (8u << 20)) return; /* only long operations, only on a terminal */
  int64_t now = cairn_host_get()->xClock ? cairn_host_get()->xClock(cairn_host_get()->pCtx, 1) : 0;
  if (nDone < nTotal && now - lastNs < 100000000) return;
  lastNs = now;
  int w = 30, k = nTotal ? (int)(nDone * (uint64_t)w / nTotal) : w;
  fprintf(stderr, "\r%s [", zLabel);
  for (int i = 0; i < w; i++) fputc(i < k ? '#' : '.', stderr);
  fprintf(stderr, "] %3d%% %llu/%llu MiB", nTotal ? (int)(nDone * 100 / nTotal) : 100,
          (unsigned long long)(nDone >> 20), (unsigned long long)(nTotal >> 20));
  gProgressShown = 1;
}
void cliProgressEnd(void) {
  if (gProgressShown) fprintf(stderr, "\r\033[K");
  gProgressShown = 0;
}

int cliVersion(int argc, char **argv) {
  (void)argc, (void)argv;
  printf("cairn %s (zstd %s, zlib %s, sha256 %s)\n", cairn_version(), cairn_zstd_version(),
         cairn_zlib_version(), cairn_sha256_kernel());
  return 0;
}


int cliIsHelp(const char *z) { return strcmp(z, "--help") == 0; }

#if CAIRN_WITH_H5
/* `cairn ls [-r] FILE [PATH]` is `cairn h5 ls` under h5ls's name; `cairn ls --store S` stays the
** chunk store's listing (two rows named "ls" below; this handler is the first). */
int cliLsAny(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--store") == 0) {
#if CAIRN_WITH_CAS
      return cliCasLs(argc, argv);
#else
      return cliUsage("ls", "this cairn is built without the chunk store (CAIRN_WITH_CAS=OFF)");
#endif
    }
  return cliH5Ls(argc, argv);
}
#endif

static const char *const azFamily[] = {"hashing & compression", "HDF5", "chunk store", "codec (OpenZL)", "memory", "general"};

/* The one table. Options: "OPTION\tWHAT" lines. Rows with a zParent are the subcommands of the
** row of that name; `cairn help` lists the rows without one, by family, in this order. */
#define OPT_MAXMEM "--max-memory B\tthe bytes one read may use (default 1 GiB, 256 MiB in cairn.wasm; K/M/G/T suffixes)\n"
#define OPT_LS "-r\trecursively, with full paths (an object reached again: \"same as\" its first path, not entered)\n" \
  "PATH\tthe group to list (default /)\n" OPT_MAXMEM
#define OPT_DUMP                                                                                   \
  "--json\t{\"shape\":[..],\"type\":{..},\"data\":..}\n--sel S\ta hyperslab, start:stride:count:block per " \
  "dimension, comma-separated\nPATH@NAME\tthe attribute NAME of PATH\n" OPT_MAXMEM
static const CliCommand aCommand[] = {
  {"hash", NULL, CLI_HASH, "FILE...", NULL, "SHA-256 of files (sha256sum format)", cliHash},
  {"zstd", NULL, CLI_HASH, "IN -o OUT [-l LEVEL]", "-o OUT\tthe zstd frame to write\n-l LEVEL\tzstd level 1..22 (default 3)\n",
   "compress a file to a zstd frame", cliZstd},
  {"unzstd", NULL, CLI_HASH, "IN -o OUT", "-o OUT\tthe decompressed file to write\n", "decompress a zstd file", cliUnzstd},
  {"gzip", NULL, CLI_HASH, "IN -o OUT [-l LEVEL]", "-o OUT\tthe gzip file to write\n-l LEVEL\tdeflate level 0..9 (default 6)\n",
   "compress a file to gzip", cliGzip},
  {"gunzip", NULL, CLI_HASH, "IN -o OUT", "-o OUT\tthe decompressed file to write\n", "decompress a gzip file", cliGunzip},
#if CAIRN_WITH_H5
  {"h5", NULL, CLI_HDF5, "ls|info|dump|attrs|dumpall FILE [PATH]", NULL, "read HDF5 files (ls -r, info, dump --json)", NULL},
  {"ls", "h5", CLI_HDF5, "[-r] FILE [PATH]", OPT_LS,
   "links of a group and what they point to, like h5ls", cliH5Ls},
  {"info", "h5", CLI_HDF5, "[--json] FILE PATH", "--json\tone JSON object\n",
   "kind, shape, type, layout, chunks, filters, attributes of an object", cliH5Info},
  {"dump", "h5", CLI_HDF5, "[--json] [--sel S] FILE PATH", OPT_DUMP, "a dataset's or an attribute's values, like h5dump -d", cliH5Dump},
  {"attrs", "h5", CLI_HDF5, "FILE PATH", NULL, "attribute names and values of an object", cliH5Attrs},
  {"dumpall", "h5", CLI_HDF5, "[--max-memory B] FILE [PATH]", OPT_MAXMEM,
   "every dataset and attribute below PATH as JSON lines (exit 1 if any fails)", cliH5DumpAll},
  {"ls", NULL, CLI_HDF5, "[-r] FILE [PATH]", OPT_LS, "list an HDF5 file's objects, like h5ls (= h5 ls)",
   cliLsAny},
  {"dump", NULL, CLI_HDF5, "[--json] [--sel S] FILE PATH", OPT_DUMP, "print a dataset's values, like h5dump -d (= h5 dump)", cliH5Dump},
  {"repack", NULL, CLI_HDF5, "[--filter SPEC] [--skip] IN OUT",
   "--filter SPEC\tfilters for every dataset: zstd:3, lz4, shuffle,deflate:6, ... (default: keep each one's)\n"
   "--skip\tleave out what the writer cannot write (a warning names it) instead of failing\n"
   "--busy-timeout MS\twait up to MS ms (default 5000) for locked files\n",
   "rewrite an HDF5 file with cairn's writer (SPEC: zstd:3, shuffle,deflate:6...)", cliRepack},
  {"h5w", NULL, CLI_HDF5, "SUB FILE ...",
   "\teach subcommand is one transaction: it commits (with sync) and exits,\n"
   "\tso a killed process leaves the file at its previous commit\n"
   "--busy-timeout MS\twait up to MS ms (default 5000) for a file another writer holds:\n"
   "\tcairn writers, h5py/libhdf5 (which lock with flock; HDF5_USE_FILE_LOCKING=FALSE\n"
   "\tturns that off on both sides); then fail (exit 1). WASI has no locks: there only a\n"
   "\tnative or Node writer's lock file is seen\n"
   "TYPE\ti8 i16 i32 i64 u8 u16 u32 u64 f32 f64 str (variable-length UTF-8)\n"
   "DIMS\t10, 0x4, 3x4x5; in --max, u (or 0 in the first place) is unlimited\n",
   "write/edit HDF5: new, group, dataset, append, write, attr, softlink, verify, loop", NULL},
  {"new", "h5w", CLI_HDF5, "FILE", NULL, "create an empty HDF5 file (an existing FILE is replaced)", cliH5wNew},
  {"group", "h5w", CLI_HDF5, "FILE PATH", NULL, "create a group", cliH5wGroup},
  {"dataset", "h5w", CLI_HDF5, "FILE PATH TYPE DIMS [--max DIMS] [--chunk DIMS] [--filter SPEC] [--fill V] [VALUE...]",
   "TYPE\ti8 i16 i32 i64 u8 u16 u32 u64 f32 f64 str\nDIMS\t10, 0x4, 3x4x5\n--max DIMS\tthe maximum shape; u (or 0 first) is unlimited\n"
   "--chunk DIMS\tthe chunk shape\n--filter SPEC\tzstd:3, lz4, shuffle,deflate:6, ...\n--fill V\tthe fill value\n"
   "VALUE...\tall the values, row-major (default: the fill value)\n",
   "create a dataset", cliH5wDataset},
  {"append", "h5w", CLI_HDF5, "FILE PATH VALUE...", NULL, "append whole rows along the first dimension", cliH5wAppend},
  {"write", "h5w", CLI_HDF5, "FILE PATH ROW0 VALUE...", NULL, "overwrite whole rows from ROW0", cliH5wWrite},
  {"attr", "h5w", CLI_HDF5, "FILE OBJECT NAME TYPE VALUE...", NULL, "set an attribute (one VALUE: a scalar)", cliH5wAttr},
  {"softlink", "h5w", CLI_HDF5, "FILE PATH TARGET", NULL, "create a soft link", cliH5wSoftlink},
  {"verify", "h5w", CLI_HDF5, "FILE", NULL, "check a file, print a SHA-256 of its logical content", cliH5wVerify},
  {"loop", "h5w", CLI_HDF5, "FILE PATH N", NULL, "append N rows one commit at a time (for kill tests)", cliH5wLoop},
#endif
#if CAIRN_WITH_CAS
  {"put", NULL, CLI_STORE, "--store S [--zstd|--zlib] FILE...",
   "--store S\tthe store file (created if missing)\n--name NAME\tthe catalog name (default: FILE as given)\n"
   "--no-name\tno catalog entry\n--zstd[=L], --zlib[=L]\tcompress the chunks\n--chunk MIN,AVG,MAX\tchunk sizes in bytes\n"
   "--no-sync\tdo not sync the store at the commit\n\tseveral FILEs are published in one transaction\n"
   "--busy-timeout MS\twait up to MS for another writer of the store (default 5000; every store command)\n",
   "publish files in a chunk store, print IDs", cliCasPut},
  {"get", NULL, CLI_STORE, "--store S ID [--range A:B] -o OUT",
   "ID\t64 hex digits, or a catalog name\n--range A:B\tbytes A to B (B exclusive; either may be empty)\n-o OUT\tthe file to write\n",
   "write a payload or a byte range, verified", cliCasGet},
  {"ls", NULL, CLI_STORE, "--store S", NULL, "list payloads: ID, size, name", cliCasLs},
  {"verify", NULL, CLI_STORE, "--store S", NULL,
   "check a store: every record, chunk, manifest and name (exit 1 on damage, listing what is lost)", cliCasVerify},
  {"salvage", NULL, CLI_STORE, "--store S -o NEW [-f] [--zstd|--zlib]",
   "-o NEW\tthe new store (same chunking, same IDs)\n-f\treplace an existing NEW\n--zstd[=L], --zlib[=L]\tcompress its chunks\n",
   "copy every payload that still verifies, and its names, into a new store", cliCasSalvage},
#endif
#if CAIRN_WITH_CAS && defined(CAIRN_WITH_S3) && CAIRN_WITH_S3
  /* cli/cmd_s3.c: the chunk store where --store may be s3://BUCKET/PREFIX (local paths: as put/get/ls/verify) */
  {"store", NULL, CLI_STORE, "put|get|ls|verify|push|pull|gc --store S ...",
   "S\ta store file, or s3://BUCKET/PREFIX (endpoint, region, keys: AWS_* variables or ~/.aws files;\n"
   "\tcore/cas/FORMAT.md \"A store in an object store\"); CAIRN_S3_STATS=1 prints requests and bytes\n",
   "chunk stores, local or in S3: put, get, ls, verify, push, pull, gc", NULL},
  {"put", "store", CLI_STORE, "--store S [--name NAME] [--zstd|--zlib] FILE...",
   "--name NAME\tthe catalog name (default: FILE as given)\n--no-name\tno catalog entry\n--zstd[=L], --zlib[=L]\tcompress chunks\n"
   "-q\tno upload report on stderr\n\tonly the chunks the store lacks are uploaded, in parallel; a failed put is resumed by running it again\n",
   "publish files (prints IDs)", cliStorePut},
  {"get", "store", CLI_STORE, "--store S ID|NAME [--range A:B] -o OUT", "-o OUT\tthe file to write (- is stdout)\n",
   "write a payload, every chunk verified", cliStoreGet},
  {"ls", "store", CLI_STORE, "--store S", NULL, "list payloads: ID, size, name", cliStoreLs},
  {"verify", "store", CLI_STORE, "--store S", NULL, "check every manifest, chunk and name (exit 1 on damage)", cliStoreVerify},
  {"push", "store", CLI_STORE, "LOCAL s3://BUCKET/PREFIX", NULL, "copy payloads and names S3 lacks (chunks it has are not sent)", cliStorePush},
  {"pull", "store", CLI_STORE, "s3://BUCKET/PREFIX LOCAL", NULL, "copy payloads and names the local store lacks (only chunks it lacks are fetched)", cliStorePull},
  {"gc", "store", CLI_STORE, "--store s3://BUCKET/PREFIX [--grace S] [--dry-run]",
   "--grace S\tnothing is deleted while a writer's marker is younger than S seconds (default 3600; keep it\n"
   "\tabove 1800 plus the clock skew between writers: core/cas/FORMAT.md \"Sweeping unused chunks\")\n--dry-run\tcount only\n",
   "delete chunks no manifest names (left by failed puts)", cliStoreGc},
#endif
#if CAIRN_WITH_ZL
  {"compress", NULL, CLI_CODEC, "[-p PROFILE] [-l LEVEL] IN -o OUT",
   "-p PROFILE\tserial (default), u8, le-u16, le-u32, le-u64, le-i64, csv,\n"
   "\trecords:W1,W2,... (fixed-width records, one column per field)\n-l LEVEL\t1..22\n-o OUT\tthe frame to write\n",
   "compress to an OpenZL frame (profiles: serial u8 le-u16 le-u32 le-u64 le-i64 csv records:W1,W2,...)", cliCompress},
  {"decompress", NULL, CLI_CODEC, "IN -o OUT", "-o OUT\tthe file to write\n", "decompress an OpenZL frame", cliDecompress},
#endif
#if CAIRN_WITH_MEM
  {"mem", NULL, CLI_MEMORY, "add|search|stats|verify|salvage|index|checkpoint|demo FILE ...", NULL,
   "agent memory store (cairn help mem)", NULL},
  {"add", "mem", CLI_MEMORY, "FILE [TEXT...] [--jsonl MEMORIES.jsonl] [OPTIONS]",
   "--jsonl F\tone memory per line: {\"text\":..,\"session\":..,\"embedding\":[..],...}\n"
   "--session S, --role R\tsession and role of the TEXTs\n--tier N, --importance X\ttier and importance\n"
   "--meta JSON\tmetadata object\n--time MS\tevent time, ms since 1970\n--embedding v1,v2,...\tthe TEXT's vector\n"
   "--no-checkpoint\tleave the new memories in the log (h5py sees them after the next checkpoint)\n"
   "--dim N\tnew stores: vector dimensions\n--metric M\tnew stores: cosine, ip or l2\n"
   "--disk D\tnew stores: vectors on disk as f32, f16 or int8\n--text-only\tnew stores: no vectors (BM25 only)\n"
   "--busy-timeout MS\t(every mem command) wait up to MS for another writer's lock (default 5000)\n",
   "add memories (prints their IDs)", cliMemAdd},
  {"search", "mem", CLI_MEMORY, "FILE QUERY [--k N] [--mode M] [--json]",
   "--k N\thits to return, 1..1000 (default 5)\n--mode M\thybrid (default), vector or bm25\n"
   "--filter JSON\tsession, role, tier, time... applied inside the search\n--index I\tauto, flat, f16, int8, ivf or ivfpq\n"
   "--nprobe N\tIVF lists to scan\n--fusion F\trrf or weighted\n--recency W\tweight of recency\n--json\tone JSON object per hit\n",
   "search memories", cliMemSearch},
  {"stats", "mem", CLI_MEMORY, "FILE", NULL, "counts, sizes, vectors, index and format of a store", cliMemStats},
  {"index", "mem", CLI_MEMORY, "FILE --kind ivf|ivfpq [--nlist N] [--m M]", NULL, "build an approximate vector index", cliMemIndex},
  {"verify", "mem", CLI_MEMORY, "FILE", NULL, "check every checksum; exit 1 on damage, saying what is lost and intact", cliMemVerify},
  {"salvage", "mem", CLI_MEMORY, "FILE -o NEW", NULL, "copy every memory that still verifies into a new store", cliMemSalvage},
  {"checkpoint", "mem", CLI_MEMORY, "FILE", NULL, "move the log into the HDF5 datasets (h5py/h5dump then see all)", cliMemCheckpoint},
  {"demo", "mem", CLI_MEMORY, "[FILE]", NULL, "ingest the built-in demo conversation and answer its questions", cliMemDemo},
  {"eval", NULL, CLI_MEMORY, "locomo FILE.json [--mode M] [--json]", NULL, "retrieval quality on LoCoMo conversations", NULL},
  {"locomo", "eval", CLI_MEMORY, "FILE.json [--mode bm25|vector|hybrid] [--dim N] [--fusion rrf|weighted] [--wv W] [--json]",
   "--mode M\tbm25 (default), vector or hybrid\n--dim N\tvector dimensions\n--fusion F\trrf or weighted\n"
   "--wv W\tweighted fusion: the vector weight (BM25 gets 1-W)\n--json\tone JSON object\n",
   "turn- and session-level recall@1/5/10, MRR, NDCG@10 per category, build time, median latency", cliEvalLocomo},
#endif
  {"version", NULL, CLI_GENERAL, "", NULL, "print versions and the kernels in use", cliVersion},
  {"help", NULL, CLI_GENERAL, "[COMMAND [SUB]]", NULL, "this list, or a command's synopsis and options", cliHelp},
};
#define N_COMMAND (sizeof(aCommand) / sizeof(aCommand[0]))

static int rowIs(const CliCommand *c, const char *zParent, const char *zName) {
  if ((c->zParent == NULL) != (zParent == NULL)) return 0;
  return (!zParent || strcmp(c->zParent, zParent) == 0) && strcmp(c->zName, zName) == 0;
}
static const CliCommand *rowFind(const char *zParent, const char *zName) {
  for (size_t i = 0; i < N_COMMAND; i++)
    if (rowIs(&aCommand[i], zParent, zName)) return &aCommand[i];
  return NULL;
}

static void helpLine(const CliCommand *c) {
  char z[96];
  if (c->zParent) snprintf(z, sizeof z, "%s %s %s", c->zParent, c->zName, c->zSynopsis);
  else snprintf(z, sizeof z, "%s %s", c->zName, c->zSynopsis);
  if (strlen(z) > 36) printf("  %s\n  %-36s %s\n", z, "", c->zHelp); /* a long synopsis: own line */
  else printf("  %-36s %s\n", z, c->zHelp);
}

/* "OPTION\tWHAT" lines, aligned (a line that starts with a tab continues the one above). */
static void helpOptions(const char *z) {
  while (*z) {
    size_t n = strcspn(z, "\n"), k = strcspn(z, "\t");
    if (k > n) k = n;
    printf("  %-22.*s %.*s\n", (int)k, z, (int)(n - k - (k < n)), z + k + (k < n));
    z += n + (z[n] == '\n');
  }
}

/* Every row called zParent zName: usage, help, options; a family also lists its subcommands. */
static void helpCommand(const char *zParent, const char *zName) {
  int n = 0;
  for (size_t i = 0; i < N_COMMAND; i++) {
    const CliCommand *c = &aCommand[i];
    if (!rowIs(c, zParent, zName)) continue;
    if (n++) printf("\n");
    if (c->xRun) printf("usage: cairn %s%s%s %s\n%s\n", zParent ? zParent : "", zParent ? " " : "", c->zName, c->zSynopsis, c->zHelp);
    else printf("usage: cairn %s SUBCOMMAND ...\n%s\n", c->zName, c->zHelp);
    if (c->zOptions) {
      printf("\n%s:\n", c->xRun ? "options" : "notes");
      helpOptions(c->zOptions);
    }
    if (!c->xRun) {
      printf("\nsubcommands (cairn help %s SUB, cairn %s SUB --help: its options):\n", c->zName, c->zName);
      for (size_t k = 0; k < N_COMMAND; k++)
        if (aCommand[k].zParent && strcmp(aCommand[k].zParent, c->zName) == 0) helpLine(&aCommand[k]);
    }
  }
}

static void helpAll(void) {
  printf("usage: cairn COMMAND [ARGS]   (cairn help COMMAND, cairn COMMAND --help: its options)\n");
  for (int f = CLI_HASH; f <= CLI_GENERAL; f++) {
    int n = 0;
    for (size_t i = 0; i < N_COMMAND; i++) {
      const CliCommand *c = &aCommand[i];
      if (c->iFamily != f || c->zParent) continue;
      if (n++ == 0) printf("\n%s:\n", azFamily[f]);
      helpLine(c);
    }
  }
  printf("\n"
         "Exit status: 0 ok, 1 failure, 2 bad arguments (one line on stderr). '-' is stdin/stdout;\n"
         "an existing output is replaced only with -f, and a failed command leaves none.\n"
#ifdef __wasi__
         "Locks: this is cairn.wasm (WASI preview1), which cannot lock files. It refuses to write a\n"
         "file while a native or Node writer's FILE.cairn-lock exists, but nothing keeps two WASI\n"
         "writers, or a WASI writer and h5py, apart: run one writer at a time.\n"
#else
         "Locks: cairn takes the file locks libhdf5 takes (flock; HDF5_USE_FILE_LOCKING=FALSE turns\n"
         "them off) plus its own, so a second writer, or h5py writing the same file, gets BUSY.\n"
         "cairn.wasm (WASI preview1) cannot lock files: run one writer at a time there.\n"
#endif
  );
}

int cliHelp(int argc, char **argv) {
  if (argc < 2) {
    helpAll();
    return 0;
  }
  const CliCommand *c = rowFind(NULL, argv[1]);
  if (!c) return cliUsage("help", "unknown command '%s'", argv[1]);
  if (argc > 2 && !c->xRun) {
    if (!rowFind(c->zName, argv[2])) return cliUsage("help", "unknown subcommand '%s %s'", argv[1], argv[2]);
    helpCommand(c->zName, argv[2]);
  } else helpCommand(NULL, argv[1]);
  return 0;
}

/* Run row c with argv[0] its name: --help (anywhere) or -h (first) prints its help; a family
** runs its subcommand. */
static int rowRun(const CliCommand *c, int argc, char **argv) {
  if (!c->xRun) {
    if (argc < 2) {
      char z[256] = "";
      size_t n = 0;
      for (size_t i = 0; i < N_COMMAND; i++)
        if (aCommand[i].zParent && strcmp(aCommand[i].zParent, c->zName) == 0 && n + 24 < sizeof z)
          n += (size_t)snprintf(z + n, sizeof z - n, "%s%s", n ? ", " : "", aCommand[i].zName);
      return cliUsage(c->zName, "need a subcommand: %s", z);
    }
    if (cliIsHelp(argv[1]) || strcmp(argv[1], "-h") == 0) {
      helpCommand(NULL, c->zName);
      return 0;
    }
    const CliCommand *s = rowFind(c->zName, argv[1]);
    if (!s) return cliUsage(c->zName, "unknown subcommand '%s'", argv[1]);
    return rowRun(s, argc - 1, argv + 1);
  }
  for (int i = 1; i < argc; i++)
    if (cliIsHelp(argv[i]) || (i == 1 && strcmp(argv[i], "-h") == 0)) {
      helpCommand(c->zParent, c->zName);
      return 0;
    }
#if CAIRN_WITH_H5
  /* the HDF5 writer's commands wait for a file another writer holds: --busy-timeout MS (anywhere) */
  if ((c->zParent && strcmp(c->zParent, "h5w") == 0) || strcmp(c->zName, "repack") == 0) {
    cairn_set_busy_timeout(CLI_BUSY_TIMEOUT_MS);
    for (int i = 1; i < argc; i++)
      if (strcmp(argv[i], "--busy-timeout") == 0) {
        char *e = NULL;
        long long ms = i + 1 < argc ? strtoll(argv[i + 1], &e, 10) : -1;
        if (!e || *e || e == argv[i + 1] || ms < 0) return cliUsage(c->zName, "--busy-timeout needs a number of ms");
        cairn_set_busy_timeout(ms);
        memmove(argv + i, argv + i + 2, sizeof(char *) * (size_t)(argc - i - 1)); /* with the NULL after */
        argc -= 2;
        i--;
      }
  }
#endif
  return c->xRun(argc, argv);
}

int cairnCliMain(int argc, char **argv) {
  if (argc < 2) {
    helpAll();
    return 2;
  }
  if (cliIsHelp(argv[1]) || strcmp(argv[1], "-h") == 0) return cliHelp(argc - 1, argv + 1);
  if (strcmp(argv[1], "--version") == 0) return cliVersion(0, NULL);
  const CliCommand *c = rowFind(NULL, argv[1]);
  if (!c) {
    fprintf(stderr, "cairn: unknown command '%s' (see 'cairn help')\n", argv[1]);
    return 2;
  }
  return rowRun(c, argc - 1, argv + 1);
}
