/* 2026-12-02 - the public JSON reader (cairn/json.h): nested objects and arrays, iteration
** and keys, strings with every escape (surrogate pairs, a lone surrogate), numbers, literals,
** bad input (each with its error code), and the calls' answers for nodes that are not there. */
#include <math.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/json.h"
#include "tf.h"

static cairn_json *parse(const char *z) {
  cairn_json *j = NULL;
  if (cairn_json_parse(z, strlen(z), &j) != CAIRN_OK) return NULL;
  return j;
}

TEST(json, nested_objects_and_arrays) {
  const char *z = " { \"a\": {\"b\": [1, [2, 3], {\"c\": null}], \"d\": {}}, \"e\": [], \"f\": true, \"g\": false } ";
  cairn_json *j = parse(z);
  CHECK(j != NULL);
  CHECK_EQ(cairn_json_type(j, 0), CAIRN_JSON_OBJECT);
  CHECK_EQ(cairn_json_count(j, 0), 4);
  uint32_t a = cairn_json_get(j, 0, "a");
  CHECK_EQ(cairn_json_type(j, a), CAIRN_JSON_OBJECT);
  CHECK_EQ(cairn_json_count(j, a), 2);
  uint32_t b = cairn_json_get(j, a, "b");
  CHECK_EQ(cairn_json_type(j, b), CAIRN_JSON_ARRAY);
  CHECK_EQ(cairn_json_count(j, b), 3);
  /* array iteration */
  uint32_t x = cairn_json_child(j, b);
  CHECK_EQ(cairn_json_num(j, x), 1.0);
  CHECK(cairn_json_key(j, x, NULL) == NULL); /* an array element has no key */
  x = cairn_json_next(j, x);
  CHECK_EQ(cairn_json_type(j, x), CAIRN_JSON_ARRAY);
  CHECK_EQ(cairn_json_num(j, cairn_json_next(j, cairn_json_child(j, x))), 3.0);
  x = cairn_json_next(j, x);
  CHECK_EQ(cairn_json_type(j, cairn_json_get(j, x, "c")), CAIRN_JSON_NULL);
  CHECK_EQ(cairn_json_next(j, x), 0);
  /* object iteration: values in order, each with its key */
  const char *azKey[] = {"a", "e", "f", "g"};
  int aType[] = {CAIRN_JSON_OBJECT, CAIRN_JSON_ARRAY, CAIRN_JSON_TRUE, CAIRN_JSON_FALSE};
  int n = 0;
  for (uint32_t v = cairn_json_child(j, 0); v; v = cairn_json_next(j, v), n++) {
    size_t nk = 0;
    CHECK(n < 4);
    if (n >= 4) break;
    CHECK_STR(cairn_json_key(j, v, &nk), azKey[n]);
    CHECK_EQ(nk, 1);
    CHECK_EQ(cairn_json_type(j, v), aType[n]);
  }
  CHECK_EQ(n, 4);
  /* empty containers, absent keys, get on a non-object */
  CHECK_EQ(cairn_json_child(j, cairn_json_get(j, a, "d")), 0);
  CHECK_EQ(cairn_json_child(j, cairn_json_get(j, 0, "e")), 0);
  CHECK_EQ(cairn_json_count(j, cairn_json_get(j, 0, "e")), 0);
  CHECK_EQ(cairn_json_get(j, 0, "zz"), 0);
  CHECK_EQ(cairn_json_get(j, b, "c"), 0);
  CHECK_EQ(cairn_json_count(j, cairn_json_get(j, 0, "f")), 0);
  /* nodes that are not there */
  CHECK_EQ(cairn_json_type(j, 100000), -1);
  CHECK_EQ(cairn_json_child(j, 100000), 0);
  CHECK_EQ(cairn_json_next(j, 100000), 0);
  CHECK(cairn_json_str(j, 100000, NULL) == NULL);
  CHECK(isnan(cairn_json_num(j, 100000)));
  CHECK(isnan(cairn_json_num(j, a)));
  CHECK(cairn_json_str(j, a, NULL) == NULL);
  CHECK_EQ(cairn_json_type(NULL, 0), -1);
  cairn_json_free(j);
  cairn_json_free(NULL);
}

TEST(json, strings_with_escapes) {
  const char *z = "[\"plain\", \"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\", \"\\u00e9\\u4e2d\", \"\\ud83d\\ude00\", \"\\ud800x\","
                  " \"a\\u0000b\", \"\xc3\xa9 raw\", \"\"]";
  cairn_json *j = parse(z);
  CHECK(j != NULL);
  CHECK_EQ(cairn_json_count(j, 0), 8);
  uint32_t x = cairn_json_child(j, 0);
  size_t n = 0;
  CHECK_STR(cairn_json_str(j, x, &n), "plain");
  CHECK_EQ(n, 5);
  x = cairn_json_next(j, x);
  CHECK_STR(cairn_json_str(j, x, NULL), "q\" b\\ s/ \b\f\n\r\t");
  x = cairn_json_next(j, x);
  CHECK_STR(cairn_json_str(j, x, NULL), "\xc3\xa9\xe4\xb8\xad"); /* U+00E9 U+4E2D */
  x = cairn_json_next(j, x);
  CHECK_STR(cairn_json_str(j, x, NULL), "\xf0\x9f\x98\x80"); /* a surrogate pair: U+1F600 */
  x = cairn_json_next(j, x);
  CHECK_STR(cairn_json_str(j, x, NULL), "\xef\xbf\xbdx"); /* a lone surrogate: U+FFFD */
  x = cairn_json_next(j, x);
  const char *zs = cairn_json_str(j, x, &n);
  CHECK_EQ(n, 3); /* \u0000 is kept; the C string stops there */
  CHECK(zs && zs[0] == 'a' && zs[1] == 0 && zs[2] == 'b');
  x = cairn_json_next(j, x);
  CHECK_STR(cairn_json_str(j, x, NULL), "\xc3\xa9 raw");
  x = cairn_json_next(j, x);
  CHECK_STR(cairn_json_str(j, x, &n), "");
  CHECK_EQ(n, 0);
  CHECK_EQ(cairn_json_next(j, x), 0);
  cairn_json_free(j);
  /* keys are decoded too */
  j = parse("{\"k\\u0041\": 1, \"\\n\": 2}");
  CHECK(j != NULL);
  CHECK_EQ(cairn_json_num(j, cairn_json_get(j, 0, "kA")), 1.0);
  CHECK_EQ(cairn_json_num(j, cairn_json_get(j, 0, "\n")), 2.0);
  cairn_json_free(j);
}

TEST(json, numbers) {
  cairn_json *j = parse("[0, -0, 42, -17, 3.25, 1e3, 2.5E-2, -1.5e+2, 9007199254740993, 1e400]");
  CHECK(j != NULL);
  double aWant[] = {0, 0, 42, -17, 3.25, 1000, 0.025, -150, 9007199254740992.0};
  uint32_t x = cairn_json_child(j, 0);
  for (int i = 0; i < 9; i++, x = cairn_json_next(j, x)) {
    CHECK_EQ(cairn_json_type(j, x), CAIRN_JSON_NUMBER);
    CHECK_EQ(cairn_json_num(j, x), aWant[i]);
  }
  CHECK(isinf(cairn_json_num(j, x))); /* out of double range: strtod's infinity */
  cairn_json_free(j);
  j = parse("-3.5");
  CHECK(j != NULL);
  CHECK_EQ(cairn_json_num(j, 0), -3.5);
  cairn_json_free(j);
}

TEST(json, bad_input) {
  static const char *const azBad[] = {"", "   ", "{", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{1: 2}", "[01]", "[1.]",
                                      "[.5]", "[1e]", "[+1]", "\"abc", "\"\\x\"", "\"\\u12g4\"", "\"a\tb\"", "nul",
                                      "tru", "[true false]", "{} x", "[] []", "'a'", "[NaN]"};
  for (size_t i = 0; i < sizeof azBad / sizeof azBad[0]; i++) {
    cairn_json *j = (cairn_json *)1;
    int rc = cairn_json_parse(azBad[i], strlen(azBad[i]), &j);
    CHECK_RC(rc, CAIRN_CORRUPT);
    CHECK(j == NULL);
    CHECK(strstr(cairn_errmsg(), "offset") != NULL); /* the message names where */
  }
  /* nesting deeper than 64 */
  char deep[200];
  memset(deep, '[', 100);
  memset(deep + 100, ']', 100);
  cairn_json *j = NULL;
  CHECK_RC(cairn_json_parse(deep, sizeof deep, &j), CAIRN_RANGE);
  CHECK(j == NULL);
  CHECK_OK(cairn_json_parse(deep + 40, 120, &j)); /* 60 deep is fine */
  cairn_json_free(j);
  /* misuse */
  CHECK_RC(cairn_json_parse("1", 1, NULL), CAIRN_MISUSE);
  CHECK_RC(cairn_json_parse(NULL, 3, &j), CAIRN_MISUSE);
  CHECK(j == NULL);
  /* not NUL-terminated: only n bytes are read */
  CHECK_OK(cairn_json_parse("[1]xyz", 3, &j));
  CHECK_EQ(cairn_json_count(j, 0), 1);
  cairn_json_free(j);
}
