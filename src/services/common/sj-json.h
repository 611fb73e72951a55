/* sj-json.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SJ_JSON_ERROR (sj_json_error_quark ())

typedef enum
{
  SJ_JSON_ERROR_INPUT_TOO_DEEP,
  SJ_JSON_ERROR_INPUT_TOO_LARGE,
  SJ_JSON_ERROR_INVALID,
} SjJsonError;

/* json-glib parses recursively: 100,000 nested arrays overflow the stack.
 * 512 is deeper than any JSON the app itself or a model ever writes. */
#define SJ_JSON_DEFAULT_MAX_DEPTH 512
#define SJ_JSON_DEFAULT_MAX_SIZE  (64 * 1024 * 1024)

typedef struct
{
  guint max_depth;   /* 0: SJ_JSON_DEFAULT_MAX_DEPTH */
  gsize max_size;    /* 0: SJ_JSON_DEFAULT_MAX_SIZE */
} SjJsonLimits;

GQuark    sj_json_error_quark (void);
JsonNode *sj_json_parse       (const char          *data,
                               gssize               length,
                               const SjJsonLimits  *limits,
                               GError             **error);
JsonNode *sj_json_parse_bytes (GBytes              *bytes,
                               const SjJsonLimits  *limits,
                               GError             **error);
gboolean  sj_json_check       (const char          *data,
                               gsize                length,
                               const SjJsonLimits  *limits,
                               gboolean            *needs_repair,
                               GError             **error);
char     *sj_json_to_string   (JsonNode            *node,
                               gboolean             pretty);
char     *sj_json_shorten_numbers (const char      *json);
void      sj_json_print_pretty    (JsonNode        *node);

const char *sj_json_object_get_string (JsonObject *object,
                                       const char *name);
JsonArray  *sj_json_object_get_array  (JsonObject *object,
                                       const char *name);
JsonObject *sj_json_object_get_object (JsonObject *object,
                                       const char *name);

G_END_DECLS
