/* sj-sse-parser.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * An incremental parser for server-sent events, the framing every
 * OpenAI-compatible provider streams completions in. Bytes arrive in
 * whatever pieces the network hands us, so a line (even a CR LF pair) may
 * be split across two reads; the parser keeps the unfinished line until its
 * end arrives. Only the "data" field matters to us: "event", "id" and
 * "retry" are ignored, and lines starting with ":" are comments (OpenRouter
 * sends ": OPENROUTER PROCESSING" as a keep-alive).
 */

#include "config.h"

#include <gio/gio.h>

#include "sj-sse-parser.h"

/* A line longer than this is not a sane completion chunk; refusing it
 * keeps a broken or hostile server from growing our memory without end. */
#define MAX_LINE_LENGTH (8 * 1024 * 1024)

struct _SjSseParser
{
  SjSseEventFunc  func;
  gpointer        user_data;
  GString        *line;      /* the line not yet terminated */
  GString        *data;      /* data lines of the event under way */
  guint           has_data : 1;
  guint           skip_lf : 1; /* the previous piece ended in CR */
};

SjSseParser *
sj_sse_parser_new (SjSseEventFunc func,
                   gpointer       user_data)
{
  SjSseParser *self = g_new0 (SjSseParser, 1);

  self->func = func;
  self->user_data = user_data;
  self->line = g_string_new (NULL);
  self->data = g_string_new (NULL);

  return self;
}

void
sj_sse_parser_free (SjSseParser *self)
{
  if (self == NULL)
    return;

  g_string_free (self->line, TRUE);
  g_string_free (self->data, TRUE);
  g_free (self);
}

static void
dispatch (SjSseParser *self)
{
  if (self->has_data)
    {
      /* Copied so that the callback may free the parser. */
      g_autofree char *data = g_strdup (self->data->str);

      self->has_data = FALSE;
      g_string_truncate (self->data, 0);
      self->func (data, self->user_data);
    }
}

static void
process_line (SjSseParser *self,
              const char  *line,
              gsize        len)
{
  const char *colon;
  const char *value;
  gsize name_len;

  if (len == 0)
    {
      dispatch (self);
      return;
    }

  if (line[0] == ':')
    return;

  colon = memchr (line, ':', len);
  name_len = colon != NULL ? (gsize) (colon - line) : len;

  if (name_len != 4 || memcmp (line, "data", 4) != 0)
    return;

  value = colon != NULL ? colon + 1 : line + len;
  if (value < line + len && *value == ' ')
    value++;

  if (self->has_data)
    g_string_append_c (self->data, '\n');
  g_string_append_len (self->data, value, line + len - value);
  self->has_data = TRUE;
}

/**
 * sj_sse_parser_feed:
 * @self: a #SjSseParser
 * @data: the bytes just read
 * @len: their length
 * @error: set when a line exceeds the limit
 *
 * Parses @data, calling the event function for every event it completes.
 *
 * Returns: %FALSE if the stream is not something we can parse
 */
gboolean
sj_sse_parser_feed (SjSseParser  *self,
                    const char   *data,
                    gsize         len,
                    GError      **error)
{
  const char *p = data;
  const char *end = data + len;

  g_return_val_if_fail (self != NULL, FALSE);

  while (p < end)
    {
      const char *eol;

      if (self->skip_lf)
        {
          self->skip_lf = FALSE;
          if (*p == '\n')
            {
              p++;
              continue;
            }
        }

      for (eol = p; eol < end && *eol != '\n' && *eol != '\r'; eol++)
        ;

      if (self->line->len + (gsize) (eol - p) > MAX_LINE_LENGTH)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               "Event stream line too long");
          return FALSE;
        }

      if (eol == end)
        {
          g_string_append_len (self->line, p, eol - p);
          break;
        }

      if (self->line->len > 0)
        {
          g_string_append_len (self->line, p, eol - p);
          process_line (self, self->line->str, self->line->len);
          g_string_truncate (self->line, 0);
        }
      else
        {
          process_line (self, p, eol - p);
        }

      if (*eol == '\r')
        {
          if (eol + 1 < end)
            {
              if (eol[1] == '\n')
                eol++;
            }
          else
            {
              self->skip_lf = TRUE;
            }
        }

      p = eol + 1;
    }

  return TRUE;
}

/**
 * sj_sse_parser_finish:
 * @self: a #SjSseParser
 *
 * Ends the stream. Some servers close the connection right after the last
 * "data:" line without the blank line that ends an event; that event is
 * delivered as long as its line was complete. An unterminated line is a
 * cut connection and is dropped: half a JSON object helps no one.
 */
void
sj_sse_parser_finish (SjSseParser *self)
{
  g_return_if_fail (self != NULL);

  g_string_truncate (self->line, 0);
  dispatch (self);
}
