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
#ifndef __wasi__
#include <pthread.h>
#include <time.h>
#endif

int cliFail(const char *zCmd, int rc) {
  const char *z = cairn_errmsg();
  cliProgressEnd(); /* the error on a line of its own */
  fprintf(stderr, "cairn: %s: %s\n", zCmd, z[0] ? z : cairn_errstr(rc));
  return 1;
}

static const char *usageLine(const char *zCmd, char *z, size_t n); /* below the table */

int cliUsage(const char *zCmd, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  fprintf(stderr, "cairn: %s: ", zCmd);
  vfprintf(stderr, zFmt, ap);
  va_end(ap);
  char z[256];
  const char *zUse = usageLine(zCmd, z, sizeof z);
  if (strcmp(zCmd, "help") == 0) fprintf(stderr, " (see 'cairn help')\n");
  else fprintf(stderr, " (see 'cairn help %s')\n", zCmd);
  if (zUse) fprintf(stderr, "%s\n", zUse); /* the command's usage on the second line */
  return 2;
}

int cliVerbosity = 1;

/* Commands whose work has no fraction to show (mem verify, import, salvage...): on a terminal,
** after a second (CAIRN_TICK_MS), a line on stderr says the command is still at work and for how
** long, until it prints (cliProgressEnd, cliNote and cliFail stop it and clear its line; stdout, if
** the same terminal, is held in a buffer until then) or returns. A second thread, natively only
** (cairn.wasm has none: it stays silent). The commands that report done/total through
** cli/progress.c (repack, eval, put, get, store verify, zstd...) do not get it. h5 dumpall gets
** it only when its stdout is not a terminal (its lines are the progress there). */
static const char *const azTicker[] = {"mem verify", "mem salvage", "mem checkpoint", "mem index", "mem import",
                                       "mem compact", "mem extract", "h5w verify", "h5 dumpall", "store salvage"};
#ifndef __wasi__
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, shown, running;
  long firstMs;
  const char *zLabel;
  pthread_t th;
} gTick = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 1000, NULL, 0};
static void *tickerMain(void *p) {
  (void)p;
  struct timespec t0;
  clock_gettime(CLOCK_REALTIME, &t0);
  pthread_mutex_lock(&gTick.mu);
  for (int n = 0; !gTick.done; n++) {
    long ms = gTick.firstMs + 500L * n; /* the first tick, then every half second */
    struct timespec t = t0;
    t.tv_sec += ms / 1000, t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
    while (!gTick.done && pthread_cond_timedwait(&gTick.cv, &gTick.mu, &t) == 0) {}
    if (gTick.done) break;
    fprintf(stderr, "\r\033[Kcairn %s: working, %.1f s", gTick.zLabel, (double)ms / 1000);
    gTick.shown = 1;
  }
  if (gTick.shown) fprintf(stderr, "\r\033[K");
  pthread_mutex_unlock(&gTick.mu);
  return NULL;
}
#endif

/* Stop the "working" line (clearing it) before the command prints; a no-op when none runs. */
void cliTickerStop(void) {
#ifndef __wasi__
  if (!gTick.running) return;
  pthread_mutex_lock(&gTick.mu);
  gTick.done = 1;
  pthread_cond_signal(&gTick.cv);
  pthread_mutex_unlock(&gTick.mu);
  pthread_join(gTick.th, NULL);
  gTick.running = 0;
  fflush(stdout); /* what the command printed while the line was up */
#endif
}

/* Run xRun(argc, argv) with the ticker if zRow is one of azTicker and stderr is a terminal. */
static int runTicking(const char *zRow, int (*xRun)(int, char **), int argc, char **argv) {
  int on = 0;
  for (size_t i = 0; i < sizeof azTicker / sizeof azTicker[0]; i++) on |= strcmp(azTicker[i], zRow) == 0;
#ifndef __wasi__
  if (on && strcmp(zRow, "h5 dumpall") == 0 && isatty(1)) on = 0;
  if (on && cliVerbosity > 0 && isatty(2)) {
    static char aOut[1 << 16];
    const char *zMs = getenv("CAIRN_TICK_MS"); /* the first tick's delay (tests/cli/progress.sh: 1) */
    gTick.firstMs = zMs && *zMs ? strtol(zMs, NULL, 10) : 1000;
    if (gTick.firstMs < 0) gTick.firstMs = 0;
    if (isatty(1)) setvbuf(stdout, aOut, _IOFBF, sizeof aOut); /* not under the line: held until it stops */
    gTick.done = 0, gTick.shown = 0, gTick.zLabel = zRow;
    if (pthread_create(&gTick.th, NULL, tickerMain, NULL) == 0) {
      gTick.running = 1;
      int rc = xRun(argc, argv);
      cliTickerStop();
      return rc;
    }
  }
#endif
  (void)on;
  return xRun(argc, argv);
}

int cliVersion(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--json") == 0)
    printf("{\"cairn\":\"%s\",\"zstd\":\"%s\",\"zlib\":\"%s\",\"sha256Kernel\":\"%s\"}\n", cairn_version(), cairn_zstd_version(),
           cairn_zlib_version(), cairn_sha256_kernel());
  else if (argc > 1) return cliUsage("version", "unknown argument '%s'", argv[1]);
  else printf("cairn %s (zstd %s, zlib %s, sha256 %s)\n", cairn_version(), cairn_zstd_version(), cairn_zlib_version(), cairn_sha256_kernel());
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
#define OPT_LS "-r, --recursive\trecursively, with full paths, from a \"/ Group\" line as h5ls -r (an object\n" \
  "\treached again: \"same as\" its first path, not entered)\n" \
  "PATH\ta group: its members (default /); any other object: its own line, as h5ls FILE/PATH\n" \
  "--json\tone JSON object per line: path, name, kind, shape, maxshape (null: unlimited), target\n" OPT_MAXMEM
#define OPT_DUMP                                                                                   \
  "--json\t{\"shape\":[..],\"type\":{..},\"data\":..}\n"                                             \
  "--sel S\tper dimension, comma-separated: I, A:B (numpy: B exclusive, either end may be\n"          \
  "\tempty) or START:STRIDE:COUNT[:BLOCK]; or h5dump's START;STRIDE;COUNT;BLOCK\n"                 \
  "-s, --start L\th5dump's subset: start, stride, count, block per dimension (comma lists;\n"         \
  "-S, --stride L\tdefaults 0, 1, 1, 1); PATH[START;STRIDE;COUNT;BLOCK] as in h5dump -d\n"          \
  "-c, --count L\t\n-k, --block L\t\n"                                                                \
  "PATH@NAME\tthe attribute NAME of PATH\n" OPT_MAXMEM                                                  \
  "\texamples: cairn dump f.h5 /x --sel 0:2,0:5; cairn dump -s 0,0 -c 2,5 f.h5 /x\n"
#define OPT_REPACK                                                                                               \
  "--filter SPEC\tfilters for every dataset: zstd:3, lz4, shuffle,deflate:6, ... (default: keep each one's)\n" \
  "--skip\tleave out what the writer cannot write (a warning names it) instead of failing\n"                  \
  "--busy-timeout MS\twait up to MS ms (default 5000) for locked files\n"
static const CliCommand aCommand[] = {
  {"hash", NULL, CLI_HASH, "[--json] FILE...", "--json\tone JSON object per file: {\"path\", \"sha256\" (64 hex digits), \"bytes\"}\n",
   "SHA-256 of files (sha256sum format)", cliHash},
  {"zstd", NULL, CLI_HASH, "IN -o OUT [-l LEVEL]", "-o, --output OUT\tthe zstd frame to write ('-': stdout)\n-l, --level LEVEL\tzstd level 1..22 (default 3)\n-f, --force\treplace an existing OUT\n",
   "compress a file to a zstd frame", cliZstd},
  {"unzstd", NULL, CLI_HASH, "IN -o OUT", "-o, --output OUT\tthe decompressed file to write ('-': stdout)\n-f, --force\treplace an existing OUT\n", "decompress a zstd file", cliUnzstd},
  {"gzip", NULL, CLI_HASH, "IN -o OUT [-l LEVEL]", "-o, --output OUT\tthe gzip file to write ('-': stdout)\n-l, --level LEVEL\tdeflate level 0..9 (default 6)\n-f, --force\treplace an existing OUT\n",
   "compress a file to gzip", cliGzip},
  {"gunzip", NULL, CLI_HASH, "IN -o OUT", "-o, --output OUT\tthe decompressed file to write ('-': stdout)\n-f, --force\treplace an existing OUT\n", "decompress a gzip file", cliGunzip},
#if CAIRN_WITH_H5
  {"h5", NULL, CLI_HDF5, "ls|info|dump|attrs|dumpall|repack FILE ...", NULL, "read HDF5 files like h5ls/h5dump, describe objects, repack", NULL},
  {"ls", "h5", CLI_HDF5, "[-r] [--json] FILE [PATH]", OPT_LS,
   "links of a group and what they point to, like h5ls", cliH5Ls},
  {"info", "h5", CLI_HDF5, "[--json] FILE PATH", "--json\tone JSON object\n",
   "kind, shape, type, layout, chunks, filters, attributes of an object", cliH5Info},
  {"dump", "h5", CLI_HDF5, "[--json] [--sel S] FILE PATH", OPT_DUMP, "a dataset's or an attribute's values, like h5dump -d", cliH5Dump},
  {"attrs", "h5", CLI_HDF5, "[--json] FILE PATH", "--json\tone JSON object per attribute, as dumpall's lines: {\"path\", \"attr\", \"shape\"\n"
   "\t([dims], \"scalar\" or \"null\"), \"type\", \"data\"} (\"error\" instead of \"data\" when unreadable)\n",
   "attribute names and values of an object", cliH5Attrs},
  {"dumpall", "h5", CLI_HDF5, "[--max-memory B] FILE [PATH]", OPT_MAXMEM,
   "every dataset and attribute below PATH as JSON lines (exit 1 if any fails)", cliH5DumpAll},
  {"ls", NULL, CLI_HDF5, "[-r] FILE [PATH]", NULL, "= h5 ls (with --store S: = store ls)", cliLsAny},
  {"dump", NULL, CLI_HDF5, "[--json] [--sel S] FILE PATH", NULL, "= h5 dump", cliH5Dump},
  {"repack", "h5", CLI_HDF5, "[--filter SPEC] [--skip] IN OUT", OPT_REPACK,
   "rewrite an HDF5 file with cairn's writer (SPEC: zstd:3, shuffle,deflate:6...)", cliRepack},
  {"repack", NULL, CLI_HDF5, "[--filter SPEC] [--skip] IN OUT", NULL, "= h5 repack", cliRepack},
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
  {"verify", "h5w", CLI_HDF5, "[--json] FILE", "--json\tone JSON object: {\"path\", \"sha256\"}\n", "check a file, print a SHA-256 of its logical content", cliH5wVerify},
  {"loop", "h5w", CLI_HDF5, "FILE PATH N", NULL, "append N rows one commit at a time (for kill tests)", cliH5wLoop},
#endif
#if CAIRN_WITH_CAS
/* The store commands: with the S3 host (cli/cmd_s3.c) --store may be s3://BUCKET/PREFIX, and
** its handlers fall through to cmd_cas.c's for local stores. */
#if defined(CAIRN_WITH_S3) && CAIRN_WITH_S3
#define CLI_STORE_PUT cliStorePut
#define CLI_STORE_GET cliStoreGet
#define CLI_STORE_LS cliStoreLs
#define CLI_STORE_VERIFY cliStoreVerify
#define CLI_STORE_S "S\ta store file, or s3://BUCKET/PREFIX (endpoint, region, keys: AWS_* variables or ~/.aws files;\n" \
  "\tcore/cas/FORMAT.md \"A store in an object store\"); CAIRN_S3_STATS=1 prints requests and bytes\n"
#else
#define CLI_STORE_PUT cliCasPut
#define CLI_STORE_GET cliCasGet
#define CLI_STORE_LS cliCasLs
#define CLI_STORE_VERIFY cliCasVerify
#define CLI_STORE_S NULL
#endif
  {"store", NULL, CLI_STORE, "put|get|ls|verify|salvage|push|pull|gc --store S ...", CLI_STORE_S,
   "content-addressed chunk store, local or in S3: publish, read back verified, list, check, salvage, sync, sweep", NULL},
  {"put", "store", CLI_STORE, "--store S [--zstd|--zlib] [--json] FILE...",
   "--store S\tthe store file (created if missing)\n--name NAME\tthe catalog name (default: FILE as given)\n"
   "--no-name\tno catalog entry\n--zstd[=L], --zlib[=L]\tcompress the chunks\n--chunk MIN,AVG,MAX\tchunk sizes in bytes\n"
   "--no-sync\tdo not sync the store at the commit\n\tseveral FILEs are published in one transaction\n"
   "--busy-timeout MS\twait up to MS for another writer of the store (default 5000; every store command)\n"
   "--json\tone JSON object per FILE: {\"id\", \"name\" (null: none), \"bytes\"} (a local store)\n",
   "publish files in a chunk store, print IDs (to S3: only the chunks it lacks, in parallel; a failed put resumes)", CLI_STORE_PUT},
  {"get", "store", CLI_STORE, "--store S ID [--range A:B] -o OUT",
   "ID\t64 hex digits, or a catalog name\n--range A:B\tbytes A to B (B exclusive; either may be empty)\n-o, --output OUT\tthe file to write\n",
   "write a payload or a byte range, verified", CLI_STORE_GET},
  {"ls", "store", CLI_STORE, "--store S [--json]", "--store S\tthe store file\n--json\tone JSON object per payload: {\"id\", \"size\", \"name\" (null: none)}\n",
   "list payloads: ID, size, name", CLI_STORE_LS},
  {"verify", "store", CLI_STORE, "--store S [--json]", "--store S\tthe store file\n--json\tone JSON object: {\"ok\", \"payloads\", \"chunks\", \"bytes\"}, or on damage\n"
   "\t{\"ok\": false, \"problems\", \"intact\", \"listed\"} (a local store)\n",
   "check a store: every record, chunk, manifest and name (exit 1 on damage, listing what is lost)", CLI_STORE_VERIFY},
  {"salvage", "store", CLI_STORE, "--store S -o NEW [-f] [--zstd|--zlib]",
   "-o, --output NEW\tthe new store (same chunking, same IDs)\n-f, --force\treplace an existing NEW\n--zstd[=L], --zlib[=L]\tcompress its chunks\n",
   "copy every payload that still verifies, and its names, into a new store", cliCasSalvage},
#if defined(CAIRN_WITH_S3) && CAIRN_WITH_S3
  {"push", "store", CLI_STORE, "LOCAL s3://BUCKET/PREFIX", NULL, "copy payloads and names S3 lacks (chunks it has are not sent)", cliStorePush},
  {"pull", "store", CLI_STORE, "s3://BUCKET/PREFIX LOCAL", NULL, "copy payloads and names the local store lacks (only chunks it lacks are fetched)", cliStorePull},
  {"gc", "store", CLI_STORE, "--store s3://BUCKET/PREFIX [--grace S] [--dry-run]",
   "--grace S\tnothing is deleted while a writer's marker is younger than S seconds (default 3600; keep it\n"
   "\tabove 1800 plus the clock skew between writers: core/cas/FORMAT.md \"Sweeping unused chunks\")\n--dry-run\tcount only\n",
   "delete chunks no manifest names (left by failed puts)", cliStoreGc},
#endif
  /* today's forms of the store commands (cairn help lists them as aliases) */
  {"put", NULL, CLI_STORE, "--store S FILE...", NULL, "= store put", CLI_STORE_PUT},
  {"get", NULL, CLI_STORE, "--store S ID -o OUT", NULL, "= store get", CLI_STORE_GET},
  {"verify", NULL, CLI_STORE, "--store S", NULL, "= store verify", CLI_STORE_VERIFY},
  {"salvage", NULL, CLI_STORE, "--store S -o NEW", NULL, "= store salvage", cliCasSalvage},
#endif
#if CAIRN_WITH_ZL
  {"zl", NULL, CLI_CODEC, "compress|decompress|info ...", NULL, "OpenZL-format frames: compress typed data, decompress any format-26 frame, describe one", NULL},
  {"compress", "zl", CLI_CODEC, "[-p PROFILE] [-l LEVEL] [--graph G] IN -o OUT",
   "-p, --profile PROFILE\tserial (default), u8, le-u16, le-u32, le-u64, le-i64, csv,\n"
   "\trecords:W1,W2,... (fixed-width records, one column per field; any input length)\n-l, --level LEVEL\t1..22 (default 19)\n"
   "--graph G\tone named graph for the whole input: store zstd lz4 huffman entropy flatpack bitpack\n"
   "-o, --output OUT\tthe frame to write ('-': stdout)\n-f, --force\treplace an existing OUT\n",
   "compress to an OpenZL frame (profiles: serial u8 le-u16 le-u32 le-u64 le-i64 csv records:W1,W2,...)", cliCompress},
  {"decompress", "zl", CLI_CODEC, "IN -o OUT", "-o, --output OUT\tthe file to write ('-': stdout)\n-f, --force\treplace an existing OUT\n",
   "decompress an OpenZL frame", cliDecompress},
  {"info", "zl", CLI_CODEC, "FRAME [--json]", "--json\tJSON instead of text\n",
   "a frame's outputs, chunks, decoder graph, and each stream's size, type and codecs", cliZlInfo},
  {"compress", NULL, CLI_CODEC, "[-p PROFILE] [-l LEVEL] IN -o OUT", NULL, "= zl compress", cliCompress},
  {"decompress", NULL, CLI_CODEC, "IN -o OUT", NULL, "= zl decompress", cliDecompress},
#endif
#if CAIRN_WITH_MEM
  {"mem", NULL, CLI_MEMORY, "add|search|get|list|update|delete|history|export|import|compact|stats|verify|salvage|index|checkpoint|demo FILE ...", NULL,
   "agent memory store (cairn help mem)", NULL},
  {"add", "mem", CLI_MEMORY, "FILE [TEXT...] [--jsonl MEMORIES.jsonl] [OPTIONS]",
   "--jsonl F\tone memory per line: {\"text\":..,\"session\":..,\"embedding\":[..],...}\n"
   "--session S, --role R\tsession and role of the TEXTs\n--tier N, --importance X\ttier and importance\n"
   "--meta JSON\tmetadata object\n--time MS\tevent time, ms since 1970\n--embedding v1,v2,...\tthe TEXT's vector\n"
   "--no-checkpoint\tleave the new memories in the log (h5py sees them after the next checkpoint)\n"
   "--dim N\tnew stores: vector dimensions\n--metric M\tnew stores: cosine, ip or l2\n"
   "--disk D\tnew stores: vectors on disk as f32, f16 or int8\n--text-only\tnew stores: no vectors (BM25 only)\n"
   "--user U, --agent A, --run R\tthe scopes of the TEXTs (--run is --session)\n"
   "--model NAME\tthe embedding model of --vector/--embedding (recorded; other models refused)\n"
   "--no-dedup\tstore an exact duplicate again (default: the existing id is printed, its access counted)\n"
   "--near T\ta memory of the same scope this similar (0..1] is a near duplicate\n--near-policy P\tkeep (default), skip or supersede\n"
   "--vector FILE\tthe TEXT's vector: a JSON array or raw f32 (- = stdin)\n--json\tone {id, version, status, duplicateOf} per TEXT\n"
   "--busy-timeout MS\t(every mem command) wait up to MS for another writer's lock (default 5000)\n",
   "add memories (prints their IDs)", cliMemAdd},
  {"search", "mem", CLI_MEMORY, "FILE QUERY [--k N] [--mode M] [--json]",
   "--k N\thits to return, 1..1000 (default 5)\n--mode M\tauto (default: hybrid with --vector, else bm25), hybrid, vector or bm25\n"
   "--filter JSON\tsession, role, tier, time... applied inside the search\n--index I\tauto, flat, f16, int8, ivf or ivfpq\n"
   "--nprobe N\tIVF lists to scan\n--fusion F\trrf or weighted\n--recency W\tweight of recency\n--json\tone JSON object per hit\n"
   "--user U, --agent A, --run R\tonly memories of these scopes\n--model NAME\tthe model of --vector (must be the store's)\n--as-of MS\tthe store as it was at MS (superseded versions)\n"
   "--vector FILE\tthe query vector: a JSON array or raw f32 (- = stdin); QUERY \"\" = the vector alone\n",
   "search memories", cliMemSearch},
  {"get", "mem", CLI_MEMORY, "FILE ID... [--json] [--embeddings]", NULL, "print memories (the current version; a version id gives that version)", cliMemGet},
  {"list", "mem", CLI_MEMORY, "FILE [--filter JSON] [--user U] [--agent A] [--run R] [--order O] [--desc] [--offset N] [--limit N] [--history] [--as-of MS] [--json]",
   "--filter JSON\tthe filter language: {\"user\": \"u\", \"meta.topic\": {\"in\": [..]}, \"or\": [...]} (docs/memory.md)\n"
   "--order O\tid (default), eventMs, createdMs, importance or accessCount\n--history\tevery version\n--json\tone object per line\n",
   "list memories with a filter, order and pagination", cliMemList},
  {"update", "mem", CLI_MEMORY, "FILE ID [--text T] [--meta JSON] [--user U] [--agent A] [--run R] [--set JSON] [--json]",
   "--set JSON\tany fields: {\"tier\": 2, \"importance\": 0.9, \"eventMs\": ms, \"embedding\": [..]}\n",
   "write a new version of a memory (the old one stays in its history)", cliMemUpdate},
  {"delete", "mem", CLI_MEMORY, "FILE (ID... | --filter JSON | --user U | --agent A | --run R | --all) [--json]", NULL,
   "forget memories and their history: gone from the file's bytes when it returns", cliMemDelete},
  {"history", "mem", CLI_MEMORY, "FILE ID [--json]", NULL, "every version of a memory with its validity", cliMemHistory},
  {"export", "mem", CLI_MEMORY, "FILE [--filter JSON] [--user U] [--agent A] [--run R] [--embeddings] > OUT.jsonl", NULL, "every version as JSONL (every field; --embeddings: vectors too)", cliMemExport},
  {"import", "mem", CLI_MEMORY, "FILE IN.jsonl|- [--json]", NULL, "add an export (or plain records); checked whole first, errors name the line", cliMemImport},
  {"compact", "mem", CLI_MEMORY, "FILE [--json]", NULL, "rewrite the file with only what it holds: it shrinks", cliMemCompact},
  {"stats", "mem", CLI_MEMORY, "FILE [--json]", "--json\tone JSON object: memories, textOnly, dim, metric, diskVectors, model, sessions,\n"
   "\troles, terms, postings, textBytes, fileBytes, index, nlist, format, checkpointed, logBytes,\n\tkernel, openMs (docs/memory.md)\n",
   "counts, sizes, vectors, index and format of a store", cliMemStats},
  {"index", "mem", CLI_MEMORY, "FILE --kind ivf|ivfpq [--nlist N] [--m M]", NULL, "build an approximate vector index", cliMemIndex},
  {"verify", "mem", CLI_MEMORY, "FILE", NULL, "check every checksum; exit 1 on damage, saying what is lost and intact", cliMemVerify},
  {"salvage", "mem", CLI_MEMORY, "FILE -o NEW", NULL, "copy every memory that still verifies into a new store", cliMemSalvage},
  {"checkpoint", "mem", CLI_MEMORY, "FILE", NULL, "move the log into the HDF5 datasets (h5py/h5dump then see all)", cliMemCheckpoint},
  {"demo", "mem", CLI_MEMORY, "[FILE]", NULL, "ingest the built-in demo conversation and answer its questions", cliMemDemo},
  /* issue 18 (cmd_eph.c): the decision gate and the ephemeral tier */
  {"gate", "mem", CLI_MEMORY, "TEXT...|- [--json] [--min-bytes N] [--min-content N] [--min-ratio X] [--trivial-max N]",
   "--json\tone JSON object: save, reason, bytes, words, content, acks, ratio\n"
   "--min-bytes N\tshorter texts are skipped as short (default 12)\n--min-content N\tfewer content words: short (default 2)\n"
   "--min-ratio X\tcontent words / words below X: low content (default 0.25; negative: off)\n"
   "--trivial-max N\tat most N words, all acknowledgements or function words: trivial (default 6)\n",
   "would the decision gate save TEXT? (trivial, short, low content, or pass; - reads stdin)", cliMemGate},
  /* issue 18 (cmd_cons.c): consolidation, the session tick, explain */
  {"consolidate", "mem", CLI_MEMORY, "FILE [--capacity N] [--half-life H] [--merge T | --no-merge] [--no-link-merge] [--min-group N] [--now MS] [--dry-run] [--json]",
   "--capacity N\tworking memories kept hot (default 1000; the weakest beyond it go to the episodic tier)\n"
   "--half-life H\trecency half-life in hours (default 168)\n--merge T\tcosine at which episodic memories are near duplicates (default 0.9)\n"
   "--no-merge\tno promotion to the semantic tier\n--no-link-merge\tmemories that link each other are not merged\n"
   "--min-group N\tmembers of a new semantic memory (default 2)\n--now MS\t\"now\" for recency (default the clock)\n"
   "--dry-run\tsay what would change, change nothing\n--json\tthe report and the plan (evictions, groups) as one JSON object\n",
   "one consolidation cycle: score, evict working memories beyond capacity, merge what recurs into semantic memories", cliMemConsolidate},
  {"tick", "mem", CLI_MEMORY, "FILE [--budget MS] [--capacity N] [--no-consolidate] [--checkpoint-at N] [--json]",
   "--budget MS\ttime the tick may take (default 50; 0 runs nothing and reports what is due)\n"
   "--capacity N\tthe consolidation's working capacity (default 1000)\n--no-consolidate\tno consolidation\n"
   "--checkpoint-at N\tcheckpoint once the log holds N memories (default 1024)\n--json\tone JSON object: due, done, skipped, ms per task\n",
   "the session tick: the maintenance that is due and fits the budget (commit, consolidation, index upkeep, checkpoint)", cliMemTick},
  {"explain", "mem", CLI_MEMORY, "FILE ID [--capacity N] [--half-life H] [--now MS] [--json]",
   "--capacity N, --half-life H, --now MS\tthe consolidation settings the score and rank are computed with\n--json\tone JSON object\n",
   "why a memory is in its tier: its score's parts, its rank or merge, its tier history", cliMemExplain},
  {"eph", NULL, CLI_MEMORY, "bench [--n N] [--dim D] [--rounds R] [--json]", NULL,
   "the in-process ephemeral tier (cairn help eph)", NULL},
  {"bench", "eph", CLI_MEMORY, "[--n N] [--dim D] [--rounds R] [--json]",
   "--n N\tkeys (default 10000)\n--dim D\tembedding dimensions (default 384)\n--rounds R\tbest of R (default 5)\n"
   "--json\tone JSON object\n",
   "SET/GET/miss/DELETE, SET with an embedding, top-10 search, the gate and the observer: ns per operation", cliEphBench},
  {"eval", NULL, CLI_MEMORY, "locomo FILE.json [--mode M] [--json]", NULL, "retrieval quality on LoCoMo conversations", NULL},
  {"locomo", "eval", CLI_MEMORY, "FILE.json [--mode auto|bm25|vector|hybrid|all|full] [--speaker text|role] [--dim N] [--fusion rrf|weighted] [--wv W] [--json]",
   "--mode M\tauto (the store's default), bm25, vector, hybrid or all (default: all, side by side per category); full: BM25 with the graph, time and context (docs/kg.md)\n"
   "--speaker S\ttext: turns stored as \"Speaker: text\" (default); role: the text alone, the speaker in the role\n"
   "--dim N\tvector dimensions\n--fusion F\trrf or weighted\n"
   "--wv W\tweighted fusion: the vector weight (BM25 gets 1-W)\n--json\tone JSON object per mode, a line each\n",
   "turn- and session-level recall@1/5/10, MRR, NDCG@10 per category, build time, median latency", cliEvalLocomo},
#endif
#if CAIRN_WITH_KG /* the knowledge graph (cli/cmd_kg.c): FILE's graph is FILE's own /graph unless --graph G */
  {"entities", "mem", CLI_MEMORY, "FILE [--graph G] [--json]", NULL, "the graph's entities: names, types, aliases, mentions", cliMemEntities},
  {"facts", "mem", CLI_MEMORY, "FILE [--as-of T] [--graph G] [--json]", "--as-of T\tms since 1970, a date, 'now' (default) or 'all'\n",
   "facts valid at a time, with their validity and sources", cliMemFacts},
  {"graph", "mem", CLI_MEMORY, "FILE ENTITY [--depth N] [--as-of T] [--graph G] [--json]", NULL,
   "entities within N hops of ENTITY and the facts between them", cliMemGraph},
  {"extract", "mem", CLI_MEMORY, "FILE [--graph G]", NULL, "run the built-in extractor over every memory into the graph", cliMemExtract},
  {"extract-json", "mem", CLI_MEMORY, "TEXT [--speaker S] [--time T]", NULL, "what the extractor finds in TEXT, as JSON", cliMemExtractJson},
  {"import-facts", "mem", CLI_MEMORY, "FILE FACTS.jsonl [--graph G]", NULL,
   "add facts (one JSON object a line: subject, predicate, object|literal, validAt, sources), all or none", cliMemImportFacts},
  {"longmemeval", "eval", CLI_MEMORY, "FILE.json [--mode bm25|hybrid|full] [--json]", NULL,
   "LongMemEval retrieval: turn/session recall@1/5/10, MRR, NDCG@10 per question type", cliEvalLongmemeval},
#endif
  {"version", NULL, CLI_GENERAL, "[--json]", "--json\tone JSON object (the npm package's version() has the same keys)\n", "print versions and the kernels in use", cliVersion},
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

/* An alias row ("= store put" as its help) stands for the row it names. */
static const CliCommand *rowTarget(const CliCommand *c) {
  if (strncmp(c->zHelp, "= ", 2) != 0) return c;
  char zA[32] = "", zB[32] = "";
  if (sscanf(c->zHelp + 2, "%31s %31[a-z0-9]", zA, zB) < 1) return c;
  const CliCommand *t = zB[0] ? rowFind(zA, zB) : NULL;
  return t ? t : c;
}

/* "usage: cairn h5 ls [-r] [--json] FILE [PATH]" for zCmd "ls", "h5 ls", "dump"...; NULL if none. */
static const char *usageLine(const char *zCmd, char *z, size_t n) {
  char zA[32] = "", zB[32] = "";
  if (sscanf(zCmd, "%31s %31s", zA, zB) < 1) return NULL;
  const CliCommand *c = zB[0] ? rowFind(zA, zB) : rowFind(NULL, zA);
  if (!c || !c->xRun) return NULL;
  c = rowTarget(c);
  snprintf(z, n, "usage: cairn %s%s%s %s", c->zParent ? c->zParent : "", c->zParent ? " " : "", c->zName, c->zSynopsis);
  return z;
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

static const char zGlobalOptions[] =
    "-q, --quiet\tno progress, no notes on stderr (errors still)\n"
    "-v, --verbose\tsay what ran and how long it took, and where an error was raised\n"
    "-h, --help\tthis help\n";

/* Examples of `cairn help CMD`, a row's lines in the order they run: together they are one
** session in an empty folder (tests/cli/grammar.sh runs them all in that order), so each may use
** what an earlier one wrote. */
static const struct {
  const char *zRow, *zLines;
} aExample[] = {
    {"h5w new", "cairn h5w new run.h5"},
    {"h5w dataset", "cairn h5w dataset run.h5 /temp f32 2x3 --max ux3 --chunk 1x3 --filter shuffle,deflate:6 20.5 21 21.5 22 22.5 23"},
    {"h5w attr", "cairn h5w attr run.h5 /temp units str celsius"},
    {"h5 ls", "cairn h5 ls -r run.h5\ncairn h5 ls run.h5 /temp"},
    {"h5 dump", "cairn h5 dump run.h5 /temp --sel 0:2,1:3\ncairn h5 dump run.h5 /temp -s 0,1 -c 2,2\ncairn h5 dump --json run.h5 /temp@units"},
    {"h5 info", "cairn h5 info --json run.h5 /temp"},
    {"h5 repack", "cairn h5 repack --filter zstd:3 run.h5 run-zstd.h5"},
    {"hash", "cairn hash --json run.h5 run-zstd.h5"},
    {"store put", "cairn store put --store files.cas run.h5 run-zstd.h5\ncairn store put --store files.cas --zstd=19 --json run.h5"},
    {"store ls", "cairn store ls --store files.cas --json"},
    {"store get", "cairn store get --store files.cas run.h5 -o copy.h5\ncairn store get --store files.cas run.h5 --range 0:512 -o head.bin"},
    {"store verify", "cairn store verify --store files.cas --json"},
    {"zl compress", "cairn zl compress -p serial run.h5 -o run.zl"},
    {"zl decompress", "cairn zl decompress run.zl -o run.back"},
    {"zstd", "cairn zstd -l 19 run.h5 -o run.h5.zst"},
    {"mem add", "cairn mem add agent.mem --text-only --session s1 \"I moved to Lisbon in May\" \"My sister lives in Porto\""},
    {"mem search", "cairn mem search agent.mem \"where did I move?\" -k 1\ncairn mem search agent.mem lisbon --json"},
    {"mem list", "cairn mem list agent.mem --order eventMs --desc --limit 10 --json"},
    {"mem update", "cairn mem update agent.mem 1 --text \"I moved to Lisbon in June\""},
    {"mem history", "cairn mem history agent.mem 1"},
    {"mem delete", "cairn mem delete agent.mem 2"},
    {"mem stats", "cairn mem stats agent.mem --json"},
};

static void helpExamples(const CliCommand *t) {
  char zRow[64];
  snprintf(zRow, sizeof zRow, "%s%s%s", t->zParent ? t->zParent : "", t->zParent ? " " : "", t->zName);
  for (size_t i = 0; i < sizeof aExample / sizeof aExample[0]; i++) {
    if (strcmp(aExample[i].zRow, zRow) != 0) continue;
    printf("\nexamples:\n");
    for (const char *p = aExample[i].zLines; *p;) {
      const char *e = strchr(p, '\n');
      int n = e ? (int)(e - p) : (int)strlen(p);
      printf("  %.*s\n", n, p);
      p += n + (e != NULL);
    }
  }
}

/* Every row called zParent zName: usage, help, options; a family also lists its subcommands. */
static void helpCommand(const char *zParent, const char *zName) {
  int n = 0;
  for (size_t i = 0; i < N_COMMAND; i++) {
    const CliCommand *c = &aCommand[i], *t = rowTarget(&aCommand[i]);
    if (!rowIs(c, zParent, zName)) continue;
    if (n++) printf("\n");
    if (t != c) printf("'cairn %s' is an alias of 'cairn %s %s' (the noun-verb form):\n", c->zName, t->zParent, t->zName);
    if (t->xRun) printf("usage: cairn %s%s%s %s\n%s\n", t->zParent ? t->zParent : "", t->zParent ? " " : "", t->zName, t->zSynopsis, t->zHelp);
    else printf("usage: cairn %s SUBCOMMAND ...\n%s\n", t->zName, t->zHelp);
    if (t->zOptions) {
      printf("\n%s:\n", t->xRun ? "options" : "notes");
      helpOptions(t->zOptions);
    }
    if (!t->xRun) {
      printf("\nsubcommands (cairn help %s SUB, cairn %s SUB --help: its options):\n", t->zName, t->zName);
      for (size_t k = 0; k < N_COMMAND; k++)
        if (aCommand[k].zParent && strcmp(aCommand[k].zParent, t->zName) == 0) helpLine(&aCommand[k]);
    } else {
      helpExamples(t);
      printf("\nevery command also takes:\n");
      helpOptions(zGlobalOptions);
    }
  }
}

static void helpAll(void) {
  printf("usage: cairn [-q|-v] COMMAND [ARGS]   (cairn help COMMAND, cairn COMMAND --help: its options)\n");
  for (int f = CLI_HASH; f <= CLI_GENERAL; f++) {
    int n = 0;
    char zAlias[512] = "";
    size_t nAlias = 0;
    for (size_t i = 0; i < N_COMMAND; i++) {
      const CliCommand *c = &aCommand[i];
      if (c->iFamily != f || c->zParent) continue;
      if (rowTarget(c) != c) {
        if (nAlias + 40 < sizeof zAlias) nAlias += (size_t)snprintf(zAlias + nAlias, sizeof zAlias - nAlias, "%s%s %s", nAlias ? ", " : "", c->zName, c->zHelp);
        continue;
      }
      if (n++ == 0) printf("\n%s:\n", azFamily[f]);
      helpLine(c);
    }
    if (nAlias) printf("  aliases: %s\n", zAlias);
  }
  printf("\n"
         "Global options: -q/--quiet (no progress or notes), -v/--verbose (what ran, how long, where an\n"
         "error was raised); --json wherever a command prints data (else refused). Exit status: 0 ok,\n"
         "1 failure (one line on stderr), 2 bad arguments (a line saying why, then the usage). '-' is\n"
         "stdin/stdout; an existing output is replaced only with -f, and a failed command leaves none.\n"
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

/* ---- what the dispatcher checks for every command, before its handler runs ---- */

/* Options spelled two ways: the handler reads zTo; zFrom is translated when the command's
** options (zOptions) list zFrom (so "-o, --output OUT" in a row makes --output work). */
static const struct {
  const char *zRow; /* "mem search", or NULL: any row listing zFrom */
  const char *zFrom, *zTo;
} aOptAlias[] = {
    {NULL, "--output", "-o"}, {NULL, "--force", "-f"}, {NULL, "--level", "-l"}, {NULL, "--profile", "-p"},
    {"mem search", "-k", "--k"},
};

/* Options whose value must be a number: 'u' a whole number >= 0, 'i' a whole number, 'x' any number. */
static const struct {
  const char *zOpt;
  char cKind;
} aOptNumber[] = {
    {"--k", 'u'},        {"--tier", 'u'},  {"--dim", 'u'},  {"--nprobe", 'u'},       {"--nlist", 'u'},
    {"--m", 'u'},        {"--time", 'i'},  {"--importance", 'x'}, {"--recency", 'x'}, {"--wv", 'x'},
    {"--busy-timeout", 'u'}, {"-l", 'i'},
};

static int optListed(const CliCommand *t, const char *zOpt) {
  const char *z = t->zOptions ? t->zOptions : "";
  size_t n = strlen(zOpt);
  for (const char *p = strstr(z, zOpt); p; p = strstr(p + 1, zOpt))
    if ((p == z || p[-1] == '\n' || p[-1] == ' ' || p[-1] == ',') && (p[n] == ' ' || p[n] == '\t' || p[n] == ',' || p[n] == '[' || p[n] == '=')) return 1;
  return 0;
}

static int numberOk(const char *z, char cKind) {
  char *e;
  if (!z || !*z) return 0;
  if (cKind == 'x') {
    (void)strtod(z, &e);
    return *e == 0;
  }
  if (cKind == 'u' && *z == '-') return 0;
  (void)strtoll(z, &e, 10);
  return *e == 0;
}

/* Whether row zRow ("mem export") documents long option zOpt, in its options or its synopsis
** (the shared parsers of a family, e.g. cmd_mem.c's memArgs, refuse the others: an option of
** `mem list` is not silently taken by `mem compact`). Rows not found: 1. */
int cliOptDocumented(const char *zRow, const char *zOpt) {
  char zA[32] = "", zB[32] = "";
  if (sscanf(zRow, "%31s %31s", zA, zB) < 1) return 1;
  const CliCommand *t = zB[0] ? rowFind(zA, zB) : rowFind(NULL, zA);
  if (!t) return 1;
  if (optListed(t, zOpt)) return 1;
  size_t n = strlen(zOpt);
  for (const char *p = strstr(t->zSynopsis, zOpt); p; p = strstr(p + 1, zOpt))
    if ((p == t->zSynopsis || strchr(" [(|", p[-1])) && strchr(" ]|)=", p[n] ? p[n] : ' ')) return 1;
  return 0;
}

/* -q/-v (anywhere: removed), option spellings, --json where the command has none, numbers:
** argv is rewritten in place (argc returned), or a usage status < 0 (-2). */
static int rowCheck(const CliCommand *c, int argc, char **argv) {
  const CliCommand *t = rowTarget(c);
  char zRow[64];
  snprintf(zRow, sizeof zRow, "%s%s%s", t->zParent ? t->zParent : "", t->zParent ? " " : "", t->zName);
  int n = 1;
  for (int i = 1; i < argc; i++) {
    const char *z = argv[i];
    if (strcmp(z, "--") == 0) { /* the rest are operands */
      for (i++; i < argc; i++) argv[n++] = argv[i];
      break;
    }
    if (strcmp(z, "-q") == 0 || strcmp(z, "--quiet") == 0) {
      cliVerbosity = 0;
      continue;
    }
    if (strcmp(z, "-v") == 0 || strcmp(z, "--verbose") == 0) {
      cliVerbosity = 2;
      continue;
    }
    for (size_t k = 0; k < sizeof aOptAlias / sizeof aOptAlias[0]; k++)
      if (strcmp(z, aOptAlias[k].zFrom) == 0 && (aOptAlias[k].zRow ? strcmp(aOptAlias[k].zRow, zRow) == 0 : optListed(t, z))) z = aOptAlias[k].zTo;
    if (strcmp(z, "--json") == 0 && !optListed(t, "--json") && !strstr(t->zSynopsis, "--json")) {
      cliUsage(zRow, "--json is not supported by this command: its output is plain text only");
      return -2;
    }
    for (size_t k = 0; k < sizeof aOptNumber / sizeof aOptNumber[0]; k++)
      if (strcmp(z, aOptNumber[k].zOpt) == 0 && optListed(t, z) && i + 1 < argc && !numberOk(argv[i + 1], aOptNumber[k].cKind)) {
        cliUsage(zRow, "%s needs %s, not '%s'", z, aOptNumber[k].cKind == 'u' ? "a whole number >= 0" : aOptNumber[k].cKind == 'i' ? "a whole number" : "a number", argv[i + 1]);
        return -2;
      }
    argv[n++] = (char *)z;
  }
  argv[n] = NULL;
  return n;
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
  if ((argc = rowCheck(c, argc, argv)) < 0) return 2;
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
  char zRow[64];
  snprintf(zRow, sizeof zRow, "%s%s%s", rowTarget(c)->zParent ? rowTarget(c)->zParent : "", rowTarget(c)->zParent ? " " : "", rowTarget(c)->zName);
  return runTicking(zRow, c->xRun, argc, argv);
}

int cairnCliMain(int argc, char **argv) {
  while (argc > 1 && (strcmp(argv[1], "-q") == 0 || strcmp(argv[1], "--quiet") == 0 || strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--verbose") == 0)) {
    cliVerbosity = argv[1][1] == 'q' || argv[1][2] == 'q' ? 0 : 2;
    argv[1] = argv[0], argv++, argc--;
  }
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
  const cairn_host *pHost = cairn_host_get();
  int64_t t0 = pHost->xClock ? pHost->xClock(pHost->pCtx, 1) : 0;
  int rc = rowRun(c, argc - 1, argv + 1);
  if (cliVerbosity > 1) {
    int64_t t1 = pHost->xClock ? pHost->xClock(pHost->pCtx, 1) : 0;
    const char *zLoc = cairn_errloc();
    fprintf(stderr, "cairn: %s: exit %d after %.3f s%s%s\n", argv[1], rc, (double)(t1 - t0) / 1e9, rc && zLoc && zLoc[0] ? "; error raised at " : "", rc && zLoc ? zLoc : "");
  }
  return rc;
}
