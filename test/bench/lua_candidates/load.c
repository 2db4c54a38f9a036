// Throwaway harness of test/bench/lua_candidates/compare.py: luaL_loadbuffer(x) each file
// (parse and compile, never run).
// Prints one line per file:
//   name \t OK|ERR \t microseconds \t peak bytes \t message
#include <lua.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static size_t cur, peak;
static void* alloc(void* ud, void* p, size_t o, size_t n) {
  (void)ud;
  if (p == NULL) o = 0;
  if (n == 0) { free(p); cur -= o; return NULL; }
  void* q = realloc(p, n);
  if (q) { cur = cur - o + n; if (cur > peak) peak = cur; }
  return q;
}
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    FILE* f = fopen(argv[i], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    char* buf = malloc(n + 1); fread(buf, 1, n, f); fclose(f);
    cur = peak = 0;
#ifdef JIT
    lua_State* L = luaL_newstate();
#else
    lua_State* L = lua_newstate(alloc, NULL);
#endif
    size_t base = peak;
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
#if LUA_VERSION_NUM >= 502
    int rc = luaL_loadbufferx(L, buf, n, "luaScript", "t");
#else
    int rc = luaL_loadbuffer(L, buf, n, "luaScript");
#endif
    clock_gettime(CLOCK_MONOTONIC, &b);
    long us = (b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000;
    const char* msg = rc ? lua_tostring(L, -1) : "";
    char m[300]; snprintf(m, sizeof m, "%s", msg ? msg : "(null)");
    for (char* c = m; *c; ++c) if (*c == '\n' || *c == '\t') *c = ' ';
    const char* slash = strrchr(argv[i], '/');
    printf("%s\t%s\t%ld\t%zu\t%s\n", slash ? slash + 1 : argv[i], rc ? "ERR" : "OK", us, peak - base, m);
    lua_close(L); free(buf);
  }
}
