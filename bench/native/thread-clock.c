// CPU time of the calling thread, read from the kernel's precise per-thread clock.
// getrusage(RUSAGE_THREAD), behind process.threadCpuUsage(), is only brought up to date at scheduler events
// (ticks, context switches), so around calls of a few hundred microseconds it credits time to the wrong call.
#include <node_api.h>
#include <time.h>

static napi_value now_ns(napi_env env, napi_callback_info info) {
  (void)info;
  struct timespec ts;
  napi_value out;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
    napi_throw_error(env, NULL, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    return NULL;
  }
  napi_create_double(env, (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "nowNs", NAPI_AUTO_LENGTH, now_ns, NULL, &fn);
  napi_set_named_property(env, exports, "nowNs", fn);
  return exports;
}
