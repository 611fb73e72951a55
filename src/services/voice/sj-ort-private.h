/* sj-ort-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The few entries of onnxruntime's C API (the OrtApi table that
 * OrtGetApiBase ()->GetApi (version) returns) that the Moonshine engine
 * uses, declared here at their documented places in the table rather than
 * from onnxruntime's header, so that the app builds without onnxruntime
 * and loads it at run time (sj-moonshine.c). The table only ever grows at
 * its end, so these places hold for every version from API version 1 on;
 * the engine asks for version SJ_ORT_API_VERSION.
 */

#pragma once

#include <stdint.h>
#include <stddef.h>

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtAllocator OrtAllocator;

/* onnxruntime 1.10's API; the bundled library is newer. */
#define SJ_ORT_API_VERSION 10

enum { SJ_ORT_LOGGING_LEVEL_ERROR = 3 };
enum { SJ_ORT_DEVICE_ALLOCATOR = 0 };
enum { SJ_ORT_MEM_TYPE_DEFAULT = 0 };
enum { SJ_ORT_ENABLE_ALL = 99 };

typedef enum
{
  SJ_ORT_FLOAT = 1,
  SJ_ORT_INT64 = 7,
  SJ_ORT_BOOL = 9,
} SjOrtElementType;

typedef struct
{
  const void *(*GetApi) (uint32_t version);
  const char *(*GetVersionString) (void);
} SjOrtApiBase;

typedef const SjOrtApiBase *(*SjOrtGetApiBaseFunc) (void);

/* The places in the OrtApi table. */
#define SJ_ORT_GET_ERROR_MESSAGE                   2
#define SJ_ORT_CREATE_ENV                          3
#define SJ_ORT_CREATE_SESSION                      7
#define SJ_ORT_RUN                                 9
#define SJ_ORT_CREATE_SESSION_OPTIONS             10
#define SJ_ORT_SET_GRAPH_OPTIMIZATION_LEVEL       23
#define SJ_ORT_SET_INTRA_OP_NUM_THREADS           24
#define SJ_ORT_SET_INTER_OP_NUM_THREADS           25
#define SJ_ORT_SESSION_GET_INPUT_COUNT            30
#define SJ_ORT_SESSION_GET_INPUT_TYPE_INFO        33
#define SJ_ORT_SESSION_GET_INPUT_NAME             36
#define SJ_ORT_CREATE_RUN_OPTIONS                 39
#define SJ_ORT_RUN_OPTIONS_SET_TERMINATE          46
#define SJ_ORT_CREATE_TENSOR_WITH_DATA_AS_ORT_VALUE 49
#define SJ_ORT_GET_TENSOR_MUTABLE_DATA            51
#define SJ_ORT_CAST_TYPE_INFO_TO_TENSOR_INFO      55
#define SJ_ORT_GET_DIMENSIONS_COUNT               61
#define SJ_ORT_GET_DIMENSIONS                     62
#define SJ_ORT_GET_TENSOR_TYPE_AND_SHAPE          65
#define SJ_ORT_CREATE_CPU_MEMORY_INFO             69
#define SJ_ORT_ALLOCATOR_FREE                     76
#define SJ_ORT_GET_ALLOCATOR_WITH_DEFAULT_OPTIONS 78
#define SJ_ORT_RELEASE_ENV                        92
#define SJ_ORT_RELEASE_STATUS                     93
#define SJ_ORT_RELEASE_MEMORY_INFO                94
#define SJ_ORT_RELEASE_SESSION                    95
#define SJ_ORT_RELEASE_VALUE                      96
#define SJ_ORT_RELEASE_RUN_OPTIONS                97
#define SJ_ORT_RELEASE_TYPE_INFO                  98
#define SJ_ORT_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO 99
#define SJ_ORT_RELEASE_SESSION_OPTIONS           100

/* Their types. */
typedef const char *(*SjOrtGetErrorMessage) (const OrtStatus *status);
typedef OrtStatus *(*SjOrtCreateEnv) (int level, const char *logid, OrtEnv **out);
typedef OrtStatus *(*SjOrtCreateSession) (const OrtEnv *env, const char *path, const OrtSessionOptions *options,
                                          OrtSession **out);
typedef OrtStatus *(*SjOrtRun) (OrtSession *session, const OrtRunOptions *run_options,
                                const char *const *input_names, const OrtValue *const *inputs, size_t n_inputs,
                                const char *const *output_names, size_t n_outputs, OrtValue **outputs);
typedef OrtStatus *(*SjOrtCreateSessionOptions) (OrtSessionOptions **out);
typedef OrtStatus *(*SjOrtSetOptionsInt) (OrtSessionOptions *options, int value);
typedef OrtStatus *(*SjOrtSessionGetInputCount) (const OrtSession *session, size_t *out);
typedef OrtStatus *(*SjOrtSessionGetInputTypeInfo) (const OrtSession *session, size_t index, OrtTypeInfo **out);
typedef OrtStatus *(*SjOrtSessionGetInputName) (const OrtSession *session, size_t index, OrtAllocator *allocator,
                                                char **out);
typedef OrtStatus *(*SjOrtCreateRunOptions) (OrtRunOptions **out);
typedef OrtStatus *(*SjOrtRunOptionsSetTerminate) (OrtRunOptions *options);
typedef OrtStatus *(*SjOrtCreateTensorWithData) (const OrtMemoryInfo *info, void *data, size_t data_len,
                                                 const int64_t *shape, size_t shape_len, int type, OrtValue **out);
typedef OrtStatus *(*SjOrtGetTensorMutableData) (OrtValue *value, void **out);
typedef OrtStatus *(*SjOrtCastTypeInfoToTensorInfo) (const OrtTypeInfo *info, const OrtTensorTypeAndShapeInfo **out);
typedef OrtStatus *(*SjOrtGetDimensionsCount) (const OrtTensorTypeAndShapeInfo *info, size_t *out);
typedef OrtStatus *(*SjOrtGetDimensions) (const OrtTensorTypeAndShapeInfo *info, int64_t *dims, size_t n_dims);
typedef OrtStatus *(*SjOrtGetTensorTypeAndShape) (const OrtValue *value, OrtTensorTypeAndShapeInfo **out);
typedef OrtStatus *(*SjOrtCreateCpuMemoryInfo) (int type, int mem_type, OrtMemoryInfo **out);
typedef OrtStatus *(*SjOrtAllocatorFree) (OrtAllocator *allocator, void *p);
typedef OrtStatus *(*SjOrtGetAllocatorWithDefaultOptions) (OrtAllocator **out);
typedef void (*SjOrtRelease) (void *object);

/* Calls the entry at @place of the table @api, of type @type. */
#define SJ_ORT(api, place, type) ((type) ((void *const *) (api))[place])
