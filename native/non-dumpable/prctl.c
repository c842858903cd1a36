/*
 * prctl(2) for Node, and nothing else: the sandbox agent calls prctl(PR_SET_DUMPABLE, 0) at start so the commands
 * it runs cannot ptrace it or read its /proc/<pid>/environ|mem, then checks PR_GET_DUMPABLE (issue 22 item 4,
 * docs/security.md "The agent out of its commands' reach"). Node has no binding for it; an FFI library cost the agent
 * ~2.8 MB of resident memory, this ~0.3 MB. Node-API only, so one build runs on every Node release.
 */
#include <sys/prctl.h>
#include <node_api.h>

/* Throws a JavaScript TypeError unless the call succeeded (a failure here is a bug, not an operating condition). */
#define CHECK(env, call)                                                    \
  do {                                                                      \
    if ((call) != napi_ok) {                                                \
      napi_throw_type_error((env), NULL, "prctl(option, value): integers expected"); \
      return NULL;                                                          \
    }                                                                       \
  } while (0)

/* prctl(option, value) -> prctl(option, value, 0, 0, 0): the system call's result, -1 on failure. */
static napi_value Prctl(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t option;
  int64_t value;
  napi_value result;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 2) {
    napi_throw_type_error(env, NULL, "prctl(option, value): two arguments expected");
    return NULL;
  }
  CHECK(env, napi_get_value_int32(env, argv[0], &option));
  CHECK(env, napi_get_value_int64(env, argv[1], &value));
  CHECK(env, napi_create_int32(env, prctl(option, (unsigned long)value, 0UL, 0UL, 0UL), &result));
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "prctl", NAPI_AUTO_LENGTH, Prctl, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "prctl", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
