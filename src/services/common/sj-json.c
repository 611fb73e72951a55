/* sj-json.c
 *
 * The one place the app parses JSON.  Everything it receives (provider
 * streams, tool arguments, messages from the page, sample maps, skill
 * manifests, imports) goes through sj_json_parse(), which checks size and
 * nesting in one linear pass over the raw text before json-glib, whose
 * parser recurses once per level, ever sees it.  The same pass finds the
 * \u escapes json-glib turns into something a C string cannot hold: U+0000
 * (which would cut the text short) and lone surrogates; they become U+FFFD
 * so the rest of the text is kept.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <math.h>

#include "sj-json.h"

G_DEFINE_QUARK (sj-json-error-quark, sj_json_error)

static int
hex4 (const char *p,
      const char *end)
{
  int value = 0;

  if (end - p < 4)
    return -1;

  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (p[i]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }

  return value;
}

/* At @p, just after a backslash: whether this \uXXXX escape is one
 * json-glib cannot hand back whole, and how many bytes it spans. */
static gboolean
escape_is_bad (const char *p,
               const char *end,
               gsize      *span)
{
  int value;

  *span = 1;
  if (*p != 'u' || (value = hex4 (p + 1, end)) < 0)
    return FALSE;

  *span = 5;
  if (value == 0 || (value >= 0xDC00 && value <= 0xDFFF))
    return TRUE;

  if (value >= 0xD800 && value <= 0xDBFF)
    {
      int low;

      /* A high surrogate is whole only with a low one right after it. */
      if (end - p >= 11 && p[5] == '\\' && p[6] == 'u' &&
          (low = hex4 (p + 7, end)) >= 0xDC00 && low <= 0xDFFF)
        {
          *span = 11;
          return FALSE;
        }
      return TRUE;
    }

  return FALSE;
}

/**
 * sj_json_check:
 * @needs_repair: (out) (optional): set when the text holds a \u0000 or a
 *   lone surrogate escape
 *
 * Checks @data against @limits in one pass, without parsing: strings and
 * their escapes are skipped, so brackets inside strings do not count.
 *
 * Returns: %FALSE with %SJ_JSON_ERROR_INPUT_TOO_LARGE or
 *   %SJ_JSON_ERROR_INPUT_TOO_DEEP past the limits
 */
gboolean
sj_json_check (const char          *data,
               gsize                length,
               const SjJsonLimits  *limits,
               gboolean            *needs_repair,
               GError             **error)
{
  guint max_depth = limits != NULL && limits->max_depth > 0 ? limits->max_depth : SJ_JSON_DEFAULT_MAX_DEPTH;
  gsize max_size = limits != NULL && limits->max_size > 0 ? limits->max_size : SJ_JSON_DEFAULT_MAX_SIZE;
  const char *end = data + length;
  gboolean in_string = FALSE;
  gboolean repair = FALSE;
  guint depth = 0;

  if (length > max_size)
    {
      g_set_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_LARGE,
                   "The JSON is %" G_GSIZE_FORMAT " bytes, more than the %" G_GSIZE_FORMAT " allowed",
                   length, max_size);
      return FALSE;
    }

  for (const char *p = data; p < end; p++)
    {
      char c = *p;

      if (in_string)
        {
          if (c == '\\' && p + 1 < end)
            {
              gsize span;

              /* json-glib reads a short \u escape ("\ud80)") as a
               * code point made of whatever follows, and hands back text
               * that is not UTF-8: refuse it here, as JSON does. */
              if (p[1] == 'u' && hex4 (p + 2, end) < 0)
                {
                  g_set_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INVALID,
                               "A \\u escape in the JSON does not have four hexadecimal digits");
                  return FALSE;
                }
              /* json-glib also reads C's escapes, octal ("\\200") among
               * them, and hands back the bytes they make, which need not be
               * UTF-8: JSON has only these. */
              if (strchr ("\"\\/bfnrtu", p[1]) == NULL || p[1] == '\0')
                {
                  g_set_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INVALID,
                               "The JSON has an escape (\\%c) that JSON does not know",
                               g_ascii_isprint (p[1]) ? p[1] : '?');
                  return FALSE;
                }
              if (escape_is_bad (p + 1, end, &span))
                repair = TRUE;
              p += span;
            }
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > max_depth)
            {
              g_set_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP,
                           "The JSON nests more than %u levels deep", max_depth);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }

  if (needs_repair != NULL)
    *needs_repair = repair;

  return TRUE;
}

/* A copy of @data with every bad escape replaced by \uFFFD (same length). */
static char *
repair_escapes (const char *data,
                gsize       length)
{
  char *copy = g_malloc (length + 1);
  const char *end = copy + length;
  gboolean in_string = FALSE;

  memcpy (copy, data, length);
  copy[length] = '\0';
  for (char *p = copy; p < end; p++)
    {
      if (in_string)
        {
          if (*p == '\\' && p + 1 < end)
            {
              gsize span;

              if (escape_is_bad (p + 1, end, &span))
                memcpy (p + 1, "uFFFD", 5);
              p += span;
            }
          else if (*p == '"')
            in_string = FALSE;
        }
      else if (*p == '"')
        in_string = TRUE;
    }

  return copy;
}

/**
 * sj_json_parse:
 * @data: JSON text
 * @length: its length, or -1 if nul-terminated
 * @limits: (nullable): the limits, %NULL for the defaults
 *
 * Returns: (transfer full): the root node, or %NULL with an
 *   %SJ_JSON_ERROR: too deep, too large, or not valid JSON (also when
 *   the text is empty)
 */
JsonNode *
sj_json_parse (const char          *data,
               gssize               length,
               const SjJsonLimits  *limits,
               GError             **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *repaired = NULL;
  gboolean needs_repair = FALSE;
  gsize size;

  if (data == NULL)
    {
      g_set_error_literal (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INVALID, "There is no JSON");
      return NULL;
    }

  size = length < 0 ? strlen (data) : (gsize)length;
  if (!sj_json_check (data, size, limits, &needs_repair, error))
    return NULL;

  if (needs_repair)
    data = repaired = repair_escapes (data, size);

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, size, &local))
    {
      g_set_error_literal (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INVALID, local->message);
      return NULL;
    }

  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error_literal (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INVALID, "The JSON is empty");
      return NULL;
    }

  return json_parser_steal_root (parser);
}

/**
 * sj_json_parse_bytes:
 *
 * sj_json_parse() on the contents of @bytes.
 */
JsonNode *
sj_json_parse_bytes (GBytes              *bytes,
                     const SjJsonLimits  *limits,
                     GError             **error)
{
  gsize size = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &size) : NULL;

  return sj_json_parse (data != NULL ? data : "", size, limits, error);
}

/* Numbers ----------------------------------------------------------------- */

/* The shortest spelling of @value that reads back as the same double:
 * json-glib writes every double with 17 significant digits, so a beat at
 * 7.4 reaches the model, the tool logs and the command line as
 * 7.4000000000000004. */
static void
append_shortest (GString *out,
                 double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  for (int digits = 1; digits <= 17; digits++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buffer, sizeof buffer, format, value);
      if (g_ascii_strtod (buffer, NULL) == value)
        break;
    }
  g_string_append (out, buffer);
}

/**
 * sj_json_shorten_numbers:
 * @json: JSON text, as json-glib writes it
 *
 * Returns: (transfer full): @json with every number that has a fraction or
 *   an exponent written in its shortest exact form; strings are untouched.
 */
char *
sj_json_shorten_numbers (const char *json)
{
  GString *out;
  const char *p = json;

  g_return_val_if_fail (json != NULL, NULL);

  out = g_string_sized_new (strlen (json));
  while (*p != '\0')
    {
      if (*p == '"')
        {
          const char *start = p++;

          while (*p != '\0' && *p != '"')
            p += (*p == '\\' && p[1] != '\0') ? 2 : 1;
          if (*p == '"')
            p++;
          g_string_append_len (out, start, p - start);
        }
      else if (*p == '-' || g_ascii_isdigit (*p))
        {
          const char *start = p;
          gboolean fraction = FALSE;
          char *end = NULL;
          double value;

          while (*p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E' || g_ascii_isdigit (*p))
            {
              fraction |= (*p == '.' || *p == 'e' || *p == 'E');
              p++;
            }
          value = g_ascii_strtod (start, &end);
          if (fraction && end == p && isfinite (value))
            append_shortest (out, value);
          else
            g_string_append_len (out, start, p - start);
        }
      else
        g_string_append_c (out, *p++);
    }

  return g_string_free (out, FALSE);
}

/**
 * sj_json_to_string:
 * @node: a JSON tree
 * @pretty: whether to indent
 *
 * json_to_string() with numbers as a person writes them (see
 * sj_json_shorten_numbers()): for what the model, the tool logs and the
 * command line show.
 *
 * Returns: (transfer full): the JSON text
 */
char *
sj_json_to_string (JsonNode *node,
                   gboolean  pretty)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (node != NULL, NULL);

  text = json_to_string (node, pretty);

  return sj_json_shorten_numbers (text);
}

/* The members as they may be, never as they should be: what comes from
 * outside (a model, the page, a file) is asked for a member of one type,
 * and gets NULL when @object is NULL, the member is missing or it holds
 * another type (json-glib's own getters warn, or are fatal in the tests). */

/**
 * sj_json_object_get_string:
 *
 * Returns: (nullable) (transfer none): the string member @name of @object
 */
const char *
sj_json_object_get_string (JsonObject *object,
                           const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * sj_json_object_get_array:
 *
 * Returns: (nullable) (transfer none): the array member @name of @object
 */
JsonArray *
sj_json_object_get_array (JsonObject *object,
                          const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/**
 * sj_json_object_get_object:
 *
 * Returns: (nullable) (transfer none): the object member @name of @object
 */
JsonObject *
sj_json_object_get_object (JsonObject *object,
                           const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/**
 * sj_json_print_pretty:
 *
 * Prints @node on the standard output, indented, its numbers shortened
 * (sj_json_shorten_numbers()), with a newline: the command-line modes'
 * answer, and all they print there.
 */
void
sj_json_print_pretty (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  g_autofree char *shortened = NULL;

  g_return_if_fail (node != NULL);

  json_generator_set_pretty (generator, TRUE);
  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  shortened = sj_json_shorten_numbers (text);
  g_print ("%s\n", shortened);
}
