/* sj-html-text.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Plain text from the small HTML that jsdoc writes into doc.json (its
 * markdown plugin renders each description): the reference shows text, and
 * the agent reads text.
 */

#include "config.h"

#include <string.h>

#include "sj-html-text.h"

static const struct {
  const char *name;
  const char *text;
} entities[] = {
  { "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" },
  { "apos", "'" }, { "nbsp", " " }, { "ndash", "–" }, { "mdash", "—" },
  { "hellip", "…" }, { "rarr", "→" }, { "larr", "←" }, { "times", "×" },
};

/* Decodes the entity at @p (just after '&'); returns the number of bytes
 * consumed after '&', or 0 when it is not an entity. */
static gsize
decode_entity (const char *p,
               GString    *out)
{
  const char *semi = strchr (p, ';');
  gsize len;

  if (semi == NULL || semi - p > 10 || semi == p)
    return 0;

  len = semi - p;

  if (p[0] == '#')
    {
      gunichar c;
      char *end = NULL;

      if (p[1] == 'x' || p[1] == 'X')
        c = g_ascii_strtoull (p + 2, &end, 16);
      else
        c = g_ascii_strtoull (p + 1, &end, 10);

      if (end != semi || !g_unichar_validate (c) || c == 0)
        return 0;

      g_string_append_unichar (out, c);
      return len + 1;
    }

  for (guint i = 0; i < G_N_ELEMENTS (entities); i++)
    {
      if (strlen (entities[i].name) == len && strncmp (p, entities[i].name, len) == 0)
        {
          g_string_append (out, entities[i].text);
          return len + 1;
        }
    }

  return 0;
}

static gboolean
tag_is (const char *tag,
        gsize       len,
        const char *name)
{
  gsize name_len = strlen (name);

  return len == name_len && g_ascii_strncasecmp (tag, name, len) == 0;
}

/**
 * sj_html_to_text:
 *
 * Turns the small HTML that jsdoc's markdown produces into plain text:
 * tags removed, paragraphs and line breaks kept as newlines, list items as
 * bullets, entities decoded, runs of blank space collapsed.
 */
char *
sj_html_to_text (const char *html)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *result = NULL;

  if (html == NULL)
    return g_strdup ("");

  for (const char *p = html; *p != '\0'; p++)
    {
      if (*p == '<')
        {
          const char *end = strchr (p, '>');
          const char *name = p + 1;
          gsize name_len = 0;

          if (end == NULL)
            {
              g_string_append_c (out, *p);
              continue;
            }

          if (*name == '/')
            name++;
          while (g_ascii_isalnum (name[name_len]))
            name_len++;

          if (tag_is (name, name_len, "p") || tag_is (name, name_len, "br") ||
              tag_is (name, name_len, "ul") || tag_is (name, name_len, "ol") ||
              tag_is (name, name_len, "pre") || tag_is (name, name_len, "div"))
            g_string_append_c (out, '\n');
          else if (tag_is (name, name_len, "li") && p[1] != '/')
            g_string_append (out, "\n• ");

          p = end;
        }
      else if (*p == '&')
        {
          gsize used = decode_entity (p + 1, out);

          if (used == 0)
            g_string_append_c (out, '&');
          p += used;
        }
      else if (*p == '\n')
        /* Source line wraps inside a paragraph are spaces; breaks come from
         * the markup. */
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, *p);
    }

  /* Collapse spaces and keep at most one blank line between paragraphs. */
  {
    g_autoptr(GString) tidy = g_string_new (NULL);
    int newlines = 0;
    gboolean space = FALSE;

    for (const char *p = out->str; *p != '\0'; p++)
      {
        if (*p == '\n')
          {
            newlines++;
            space = FALSE;
          }
        else if (*p == ' ' || *p == '\t' || *p == '\r')
          space = TRUE;
        else
          {
            if (tidy->len > 0)
              {
                if (newlines > 1)
                  g_string_append (tidy, "\n\n");
                else if (newlines == 1)
                  g_string_append_c (tidy, '\n');
                else if (space)
                  g_string_append_c (tidy, ' ');
              }
            newlines = 0;
            space = FALSE;
            g_string_append_c (tidy, *p);
          }
      }

    result = g_string_free (g_steal_pointer (&tidy), FALSE);
  }

  return g_steal_pointer (&result);
}

