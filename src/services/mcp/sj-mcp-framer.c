/* sj-mcp-framer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The stdio transport of the Model Context Protocol is one JSON-RPC message
 * a line. The framer cuts what stdin gives, in chunks of any size, into
 * lines, and holds at most the limit: a longer line is reported once, as
 * soon as it goes over, and the rest of it is dropped up to its newline,
 * so a client that sends 10 MB (or never a newline) costs no more memory
 * than the limit. A "\r" before the newline is dropped too, and so are
 * empty lines.
 */

#include "config.h"

#include <string.h>

#include "sj-mcp-framer.h"

struct _SjMcpFramer
{
  GString *line;
  gsize    max_line;
  gboolean skipping;   /* inside a line that went over the limit */
};

SjMcpFramer *
sj_mcp_framer_new (gsize max_line)
{
  SjMcpFramer *self = g_new0 (SjMcpFramer, 1);

  self->max_line = max_line > 0 ? max_line : SJ_MCP_MAX_LINE;
  self->line = g_string_new (NULL);

  return self;
}

void
sj_mcp_framer_free (SjMcpFramer *self)
{
  if (self == NULL)
    return;

  g_string_free (self->line, TRUE);
  g_free (self);
}

static void
emit_line (SjMcpFramer   *self,
           SjMcpLineFunc  func,
           gpointer       user_data)
{
  if (self->line->len > 0 && self->line->str[self->line->len - 1] == '\r')
    g_string_truncate (self->line, self->line->len - 1);
  if (self->line->len > 0)
    func (self->line->str, self->line->len, FALSE, user_data);
  g_string_truncate (self->line, 0);
}

/**
 * sj_mcp_framer_push:
 *
 * Takes the next @length bytes of the stream and calls @func for every
 * line they complete.
 */
void
sj_mcp_framer_push (SjMcpFramer   *self,
                    const char    *data,
                    gsize          length,
                    SjMcpLineFunc  func,
                    gpointer       user_data)
{
  const char *end = data + length;

  g_return_if_fail (self != NULL);

  while (data < end)
    {
      const char *newline = memchr (data, '\n', end - data);
      gsize span = (newline != NULL ? newline : end) - data;

      if (!self->skipping)
        {
          if (self->line->len + span > self->max_line)
            {
              self->skipping = TRUE;
              g_string_truncate (self->line, 0);
              /* Give the memory back: the next line starts small. */
              g_string_free (self->line, TRUE);
              self->line = g_string_new (NULL);
              func (NULL, 0, TRUE, user_data);
            }
          else
            g_string_append_len (self->line, data, span);
        }

      if (newline == NULL)
        break;

      if (self->skipping)
        self->skipping = FALSE;
      else
        emit_line (self, func, user_data);
      data = newline + 1;
    }
}

/* The stream ended: a last line without its newline still counts. */
void
sj_mcp_framer_finish (SjMcpFramer   *self,
                      SjMcpLineFunc  func,
                      gpointer       user_data)
{
  g_return_if_fail (self != NULL);

  if (!self->skipping)
    emit_line (self, func, user_data);
  self->skipping = FALSE;
  g_string_truncate (self->line, 0);
}

/* What is held now, for the tests. */
gsize
sj_mcp_framer_get_buffered (SjMcpFramer *self)
{
  return self->line->len;
}
