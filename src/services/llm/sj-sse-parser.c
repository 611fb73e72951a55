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

#include "sj-sse-parser-private.h"

/* An event (its data lines together, and the line under way) larger than
 * this is not a sane completion chunk; refusing it keeps a broken or
 * hostile server from growing our memory without end, whether it sends one
 * endless line or endless "data:" lines with no blank line between them. */
#define MAX_EVENT_SIZE (8 * 1024 * 1024)

struct _SjSseParser
{
  SjSseEventFunc  func;
  gpointer        user_data;
  GString        *line;      /* the line not yet terminated */
  GString        *data;      /* data lines of the event under way */
  gsize           max_event; /* MAX_EVENT_SIZE, smaller in tests */
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
  self->max_event = MAX_EVENT_SIZE;

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

/* The bytes held for the event under way. */
static gsize
buffered (SjSseParser *self)
{
  return self->data->len + self->line->len;
}

static gboolean
event_too_large (SjSseParser  *self,
                 gsize         more,
                 GError      **error)
{
  if (buffered (self) + more <= self->max_event)
    return FALSE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
               "The provider sent an event larger than %" G_GSIZE_FORMAT " MiB",
               self->max_event / (1024 * 1024));
  return TRUE;
}

static gboolean
process_line (SjSseParser *self,
              const char  *line,
              gsize        len,
              GError     **error)
{
  const char *colon;
  const char *value;
  gsize name_len;

  if (len == 0)
    {
      dispatch (self);
      return TRUE;
    }

  if (line[0] == ':')
    return TRUE;

  colon = memchr (line, ':', len);
  name_len = colon != NULL ? (gsize) (colon - line) : len;

  if (name_len != 4 || memcmp (line, "data", 4) != 0)
    return TRUE;

  value = colon != NULL ? colon + 1 : line + len;
  if (value < line + len && *value == ' ')
    value++;

  /* The line itself was counted while it arrived; what counts now is the
   * event it joins. */
  if (self->data->len + (gsize) (line + len - value) + 1 > self->max_event)
    {
      g_string_truncate (self->line, 0);
      return !event_too_large (self, (line + len - value) + 1, error);
    }

  if (self->has_data)
    g_string_append_c (self->data, '\n');
  g_string_append_len (self->data, value, line + len - value);
  self->has_data = TRUE;

  return TRUE;
}

/**
 * sj_sse_parser_feed:
 * @self: a #SjSseParser
 * @data: the bytes just read
 * @len: their length
 * @error: set when an event exceeds the limit (%G_IO_ERROR_MESSAGE_TOO_LARGE)
 *
 * Parses @data, calling the event function for every event it completes.
 * The parser never holds more than the limit of one event, however the
 * bytes come.
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

      if (event_too_large (self, eol - p, error))
        return FALSE;

      if (eol == end)
        {
          g_string_append_len (self->line, p, eol - p);
          break;
        }

      if (self->line->len > 0)
        {
          gboolean ok;

          g_string_append_len (self->line, p, eol - p);
          /* The line is about to join the event: not counted twice. */
          ok = process_line (self, self->line->str, self->line->len, error);
          g_string_truncate (self->line, 0);
          if (!ok)
            return FALSE;
        }
      else if (!process_line (self, p, eol - p, error))
        {
          return FALSE;
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

/**
 * _sj_sse_parser_get_buffered:
 *
 * For the tests: the bytes the parser holds for the event under way.
 */
gsize
_sj_sse_parser_get_buffered (SjSseParser *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return buffered (self);
}

/**
 * _sj_sse_parser_set_max_event:
 *
 * For the tests and the benchmark: a smaller limit for one event.
 */
void
_sj_sse_parser_set_max_event (SjSseParser *self,
                              gsize        max_event)
{
  g_return_if_fail (self != NULL);

  self->max_event = max_event;
}
