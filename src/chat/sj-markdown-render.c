/* sj-markdown-render.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The widgets of an assistant message, built from cmark-gfm's parse of its
 * Markdown: a selectable, wrapping GtkLabel with Pango markup for each run
 * of inline text, boxes for lists and block quotes, a GtkGrid for each GFM
 * table, a separator for each thematic break and an SjCodeBlock for each
 * code block.
 *
 * The text comes from a language model and is untrusted: every piece of it
 * goes through g_markup_escape_text before it meets Pango, raw HTML is shown
 * as text, images are never fetched (their description is shown instead),
 * and only http, https and mailto links are made clickable. Nesting is
 * bounded so that a hostile message cannot build an arbitrarily deep widget
 * tree or recurse without limit.
 */

#include "config.h"

#include <cmark-gfm-core-extensions.h>

#include "sj-code-block.h"
#include "sj-markdown-render.h"

/* Deeper containers than this are shown as their plain text. */
#define MAX_DEPTH 12

/* What a reusable block widget was built from, for sj_markdown_render_update(). */
#define KIND_KEY "sj-markdown-kind"

enum {
  KIND_PARAGRAPH = 1,
  KIND_HEADING = 10, /* + the level */
};

static const char *
type_string (cmark_node *node)
{
  return cmark_node_get_type_string (node);
}

/**
 * sj_markdown_parse:
 *
 * Parses @length bytes of @text as GitHub-flavoured Markdown, with source
 * positions (the streaming view needs the line each block starts on).
 *
 * Returns: (transfer full): the document; free it with cmark_node_free()
 */
cmark_node *
sj_markdown_parse (const char *text,
                   gsize       length)
{
  static const char * const extensions[] = { "table", "strikethrough", "autolink" };
  cmark_parser *parser;
  cmark_node *document;

  cmark_gfm_core_extensions_ensure_registered ();

  /* Invalid UTF-8 (a stream cut inside a character, or hostile bytes)
   * becomes U+FFFD here, so every string handed to GTK is valid. */
  parser = cmark_parser_new (CMARK_OPT_SOURCEPOS | CMARK_OPT_VALIDATE_UTF8);
  for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
    {
      cmark_syntax_extension *extension = cmark_find_syntax_extension (extensions[i]);

      if (extension != NULL)
        cmark_parser_attach_syntax_extension (parser, extension);
    }
  cmark_parser_feed (parser, text, length);
  document = cmark_parser_finish (parser);
  cmark_parser_free (parser);

  return document;
}

gboolean
sj_markdown_uri_is_safe (const char *uri)
{
  g_autofree char *scheme = g_uri_parse_scheme (uri);

  return scheme != NULL &&
         (g_ascii_strcasecmp (scheme, "http") == 0 ||
          g_ascii_strcasecmp (scheme, "https") == 0 ||
          g_ascii_strcasecmp (scheme, "mailto") == 0);
}

static void
append_escaped (GString    *markup,
                const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

  g_string_append (markup, escaped);
}

/* The Pango markup of the inlines under @node. An iterator rather than
 * recursion: emphasis can nest as deep as the text is long. */
static char *
inline_markup (cmark_node *node)
{
  GString *markup = g_string_new (NULL);
  cmark_iter *iter = cmark_iter_new (node);
  cmark_event_type event;
  guint link_depth = 0;
  guint open_links = 0;

  while ((event = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *current = cmark_iter_get_node (iter);
      gboolean entering = event == CMARK_EVENT_ENTER;

      if (current == node)
        continue;

      switch (cmark_node_get_type (current))
        {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_HTML_INLINE:
        case CMARK_NODE_CUSTOM_INLINE:
          append_escaped (markup, cmark_node_get_literal (current));
          break;

        case CMARK_NODE_CODE:
          g_string_append (markup, "<tt>");
          append_escaped (markup, cmark_node_get_literal (current));
          g_string_append (markup, "</tt>");
          break;

        case CMARK_NODE_SOFTBREAK:
          g_string_append_c (markup, ' ');
          break;

        case CMARK_NODE_LINEBREAK:
          g_string_append_c (markup, '\n');
          break;

        case CMARK_NODE_EMPH:
          g_string_append (markup, entering ? "<i>" : "</i>");
          break;

        case CMARK_NODE_STRONG:
          g_string_append (markup, entering ? "<b>" : "</b>");
          break;

        case CMARK_NODE_LINK:
          /* Links cannot nest in Pango; only the outermost is clickable. */
          if (entering)
            {
              const char *url = cmark_node_get_url (current);

              if (link_depth++ == 0 && url != NULL && sj_markdown_uri_is_safe (url))
                {
                  g_string_append (markup, "<a href=\"");
                  append_escaped (markup, url);
                  g_string_append (markup, "\">");
                  open_links++;
                }
            }
          else if (--link_depth == 0 && open_links > 0)
            {
              g_string_append (markup, "</a>");
              open_links--;
            }
          break;

        case CMARK_NODE_IMAGE:
          /* Images are never fetched: their description stands in. */
          break;

        default:
          if (g_strcmp0 (type_string (current), "strikethrough") == 0)
            g_string_append (markup, entering ? "<s>" : "</s>");
          break;
        }
    }

  cmark_iter_free (iter);

  return g_string_free (markup, FALSE);
}

/* All the text under @node, without markup, for containers too deep to
 * show as widgets. */
static char *
plain_text (cmark_node *node)
{
  GString *text = g_string_new (NULL);
  cmark_iter *iter = cmark_iter_new (node);
  cmark_event_type event;

  while ((event = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *current = cmark_iter_get_node (iter);
      const char *literal;

      if (event != CMARK_EVENT_ENTER)
        continue;
      literal = cmark_node_get_literal (current);
      if (literal != NULL)
        g_string_append (text, literal);
      if (cmark_node_get_type (current) == CMARK_NODE_SOFTBREAK ||
          cmark_node_get_type (current) == CMARK_NODE_LINEBREAK ||
          cmark_node_get_type (current) == CMARK_NODE_PARAGRAPH)
        g_string_append_c (text, '\n');
    }

  cmark_iter_free (iter);

  return g_string_free (text, FALSE);
}

static GtkWidget *
new_label (const SjMarkdownRenderer *renderer,
           const char               *markup)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (renderer->activate_link_cb != NULL)
    g_signal_connect (label, "activate-link", renderer->activate_link_cb, renderer->user_data);

  return label;
}

static GtkWidget *
new_plain_label (const SjMarkdownRenderer *renderer,
                 const char               *text,
                 gboolean                  monospace)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_autofree char *markup = monospace ? g_strconcat ("<tt>", escaped, "</tt>", NULL) : NULL;

  return new_label (renderer, markup != NULL ? markup : escaped);
}

static const char *
heading_class (int level)
{
  static const char * const classes[] = { "title-1", "title-2", "title-3", "title-4" };

  return level >= 1 && level <= 4 ? classes[level - 1] : "heading";
}

static int
node_kind (cmark_node *node)
{
  switch (cmark_node_get_type (node))
    {
    case CMARK_NODE_PARAGRAPH:
      return KIND_PARAGRAPH;
    case CMARK_NODE_HEADING:
      return KIND_HEADING + cmark_node_get_heading_level (node);
    default:
      return 0;
    }
}

static GtkWidget *
render_text_block (const SjMarkdownRenderer *renderer,
                   cmark_node               *node)
{
  g_autofree char *markup = inline_markup (node);
  GtkWidget *label = new_label (renderer, markup);
  int kind = node_kind (node);

  if (kind >= KIND_HEADING)
    {
      gtk_widget_add_css_class (label, heading_class (kind - KIND_HEADING));
      gtk_widget_set_margin_top (label, 6);
    }
  g_object_set_data (G_OBJECT (label), KIND_KEY, GINT_TO_POINTER (kind));

  return label;
}

/* The code of a code block without the newline that ends its last line. */
static char *
code_of (cmark_node *node)
{
  const char *literal = cmark_node_get_literal (node);
  gsize length = literal != NULL ? strlen (literal) : 0;

  if (length > 0 && literal[length - 1] == '\n')
    length--;

  return g_strndup (literal != NULL ? literal : "", length);
}

/* The first word of the fence's info string: "js title=x" is "js". */
static char *
language_of (cmark_node *node)
{
  const char *info = cmark_node_get_fence_info (node);
  gsize length = 0;

  if (info == NULL)
    return g_strdup ("");
  while (info[length] != '\0' && !g_ascii_isspace (info[length]))
    length++;

  return g_strndup (info, length);
}

static GtkWidget *
render_code_block (const SjMarkdownRenderer *renderer,
                   cmark_node               *node)
{
  g_autofree char *code = code_of (node);
  g_autofree char *language = language_of (node);
  GtkWidget *block = sj_code_block_new (code, language);


  return block;
}

static GtkWidget *render_node (const SjMarkdownRenderer *renderer,
                               cmark_node               *node,
                               guint                     depth);

static void
render_children (const SjMarkdownRenderer *renderer,
                 cmark_node               *parent,
                 GtkBox                   *box,
                 guint                     depth)
{
  for (cmark_node *child = cmark_node_first_child (parent); child != NULL; child = cmark_node_next (child))
    {
      GtkWidget *widget = render_node (renderer, child, depth);

      if (widget != NULL)
        gtk_box_append (box, widget);
    }
}

static GtkWidget *
render_list (const SjMarkdownRenderer *renderer,
             cmark_node               *node,
             guint                     depth)
{
  static const char * const bullets[] = { "•", "◦", "▪" };
  gboolean tight = cmark_node_get_list_tight (node);
  gboolean ordered = cmark_node_get_list_type (node) == CMARK_ORDERED_LIST;
  const char *delimiter = cmark_node_get_list_delim (node) == CMARK_PAREN_DELIM ? ")" : ".";
  GtkWidget *list = gtk_box_new (GTK_ORIENTATION_VERTICAL, tight ? 3 : 9);
  int number = cmark_node_get_list_start (node);

  gtk_widget_add_css_class (list, "sj-markdown-list");

  for (cmark_node *item = cmark_node_first_child (node); item != NULL; item = cmark_node_next (item))
    {
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, tight ? 3 : 9);
      g_autofree char *marker = NULL;
      GtkWidget *marker_label;

      if (ordered)
        marker = g_strdup_printf ("%d%s", number++, delimiter);
      else
        marker = g_strdup (bullets[(depth / 2) % G_N_ELEMENTS (bullets)]);
      marker_label = gtk_label_new (marker);
      gtk_widget_set_valign (marker_label, GTK_ALIGN_START);
      gtk_label_set_xalign (GTK_LABEL (marker_label), 1);
      gtk_widget_set_size_request (marker_label, 18, -1);
      gtk_accessible_update_state (GTK_ACCESSIBLE (marker_label), GTK_ACCESSIBLE_STATE_HIDDEN, ordered ? FALSE : TRUE, -1);

      gtk_widget_add_css_class (row, "sj-markdown-item");
      gtk_widget_set_hexpand (content, TRUE);
      render_children (renderer, item, GTK_BOX (content), depth + 1);

      gtk_box_append (GTK_BOX (row), marker_label);
      gtk_box_append (GTK_BOX (row), content);
      gtk_box_append (GTK_BOX (list), row);
    }

  return list;
}

static GtkWidget *
render_block_quote (const SjMarkdownRenderer *renderer,
                    cmark_node               *node,
                    guint                     depth)
{
  GtkWidget *quote = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 9);
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  gtk_widget_add_css_class (quote, "sj-markdown-quote");
  gtk_box_append (GTK_BOX (quote), gtk_separator_new (GTK_ORIENTATION_VERTICAL));
  gtk_widget_add_css_class (content, "dim-label");
  gtk_widget_set_hexpand (content, TRUE);
  render_children (renderer, node, GTK_BOX (content), depth + 1);
  gtk_box_append (GTK_BOX (quote), content);

  return quote;
}

static GtkWidget *
render_table (const SjMarkdownRenderer *renderer,
              cmark_node               *node)
{
  GtkWidget *grid = gtk_grid_new ();
  guint n_columns = cmark_gfm_extensions_get_table_columns (node);
  const guint8 *alignments = cmark_gfm_extensions_get_table_alignments (node);
  int row = 0;

  gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_widget_add_css_class (grid, "sj-markdown-table");

  for (cmark_node *table_row = cmark_node_first_child (node); table_row != NULL; table_row = cmark_node_next (table_row))
    {
      gboolean header = cmark_gfm_extensions_get_table_row_is_header (table_row);
      guint column = 0;

      for (cmark_node *cell = cmark_node_first_child (table_row);
           cell != NULL && column < n_columns;
           cell = cmark_node_next (cell), column++)
        {
          g_autofree char *markup = inline_markup (cell);
          g_autofree char *bold = header ? g_strconcat ("<b>", markup, "</b>", NULL) : NULL;
          GtkWidget *label = new_label (renderer, bold != NULL ? bold : markup);

          if (alignments != NULL && alignments[column] == 'c')
            gtk_label_set_xalign (GTK_LABEL (label), 0.5);
          else if (alignments != NULL && alignments[column] == 'r')
            gtk_label_set_xalign (GTK_LABEL (label), 1);
          gtk_widget_set_hexpand (label, TRUE);
          gtk_grid_attach (GTK_GRID (grid), label, column, row, 1, 1);
        }
      row++;
    }

  return grid;
}

static GtkWidget *
render_node (const SjMarkdownRenderer *renderer,
             cmark_node               *node,
             guint                     depth)
{
  if (depth >= MAX_DEPTH)
    {
      g_autofree char *text = plain_text (node);

      g_strchomp (text);
      return new_plain_label (renderer, text, FALSE);
    }

  switch (cmark_node_get_type (node))
    {
    case CMARK_NODE_PARAGRAPH:
    case CMARK_NODE_HEADING:
      return render_text_block (renderer, node);

    case CMARK_NODE_CODE_BLOCK:
      return render_code_block (renderer, node);

    case CMARK_NODE_LIST:
      return render_list (renderer, node, depth);

    case CMARK_NODE_BLOCK_QUOTE:
      return render_block_quote (renderer, node, depth);

    case CMARK_NODE_THEMATIC_BREAK:
      {
        GtkWidget *separator = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);

        gtk_widget_set_margin_top (separator, 6);
        gtk_widget_set_margin_bottom (separator, 6);
        return separator;
      }

    case CMARK_NODE_HTML_BLOCK:
    case CMARK_NODE_CUSTOM_BLOCK:
      {
        g_autofree char *text = code_of (node);

        return new_plain_label (renderer, text, TRUE);
      }

    default:
      if (g_strcmp0 (type_string (node), "table") == 0)
        return render_table (renderer, node);
      else
        {
          /* Anything else (an extension's block) is shown as its text. */
          g_autofree char *text = plain_text (node);

          g_strchomp (text);
          return *text != '\0' ? new_plain_label (renderer, text, FALSE) : NULL;
        }
    }
}

/**
 * sj_markdown_render_block:
 * @node: a top-level block of a document from sj_markdown_parse()
 *
 * Returns: (transfer floating) (nullable): the widget that shows @node, or
 *   %NULL for a block with nothing to show
 */
GtkWidget *
sj_markdown_render_block (const SjMarkdownRenderer *renderer,
                          cmark_node               *node)
{
  return render_node (renderer, node, 0);
}

/**
 * sj_markdown_render_update:
 * @widget: a widget that sj_markdown_render_block() built
 * @node: a block that replaces the one @widget shows
 *
 * Shows @node in @widget when the widget is of the right kind (the same
 * kind of text block, or a code block in the same language), so that a
 * block growing while it streams keeps its widget.
 *
 * Returns: whether @widget now shows @node
 */
gboolean
sj_markdown_render_update (GtkWidget  *widget,
                           cmark_node *node)
{
  if (SJ_IS_CODE_BLOCK (widget))
    {
      g_autofree char *language = NULL;
      g_autofree char *code = NULL;

      if (cmark_node_get_type (node) != CMARK_NODE_CODE_BLOCK)
        return FALSE;
      language = language_of (node);
      if (!g_str_equal (language, sj_code_block_get_language (SJ_CODE_BLOCK (widget))))
        return FALSE;
      code = code_of (node);
      sj_code_block_set_code (SJ_CODE_BLOCK (widget), code);
      return TRUE;
    }

  if (GTK_IS_LABEL (widget))
    {
      int kind = node_kind (node);
      g_autofree char *markup = NULL;

      if (kind == 0 || kind != GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), KIND_KEY)))
        return FALSE;
      markup = inline_markup (node);
      if (g_strcmp0 (markup, gtk_label_get_label (GTK_LABEL (widget))) != 0)
        gtk_label_set_markup (GTK_LABEL (widget), markup);
      return TRUE;
    }

  return FALSE;
}
