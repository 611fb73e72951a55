/* sj-markdown-view.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * An assistant message, its Markdown rendered natively (see
 * sj-markdown-render.c) as it streams in.
 *
 * Streaming is cheap because a message is a sequence of top-level blocks and
 * only the last ones can still change. The view keeps one child widget per
 * top-level block with the byte offset where the block starts; an append
 * only schedules a render on the next frame (however many deltas arrive in
 * between), and a render parses the text from the start of the first block
 * that may still change, replaces the widgets from that block on, and keeps
 * every widget before it.
 *
 * Which blocks are finished: cmark reads Markdown a line at a time, and a
 * top-level block is closed for good once a complete line begins the next
 * one (a blank line never begins a block, so an open fence, a list with
 * blank lines between its items or a lazy continuation all stay in the last
 * block). The last line may still be incomplete, though, and what it is can
 * change as it grows ("2" is a paragraph that ends a list, "2. b" continues
 * it): a block begun on the incomplete last line does not yet close the one
 * before it. So every block but the last is finished, and also the one
 * before the last when the last begins on an incomplete line.
 *
 * Link reference definitions are the exception: one defined in a finished
 * block is not seen by later blocks while streaming. Language models
 * hardly ever write them, and sj_markdown_view_set_text() renders them.
 *
 * A very long answer is folded: only its first FOLD_BYTES (cut at a line)
 * are rendered, with a "Show all" button under them. A megabyte of text is
 * tens of thousands of labels, which took GTK most of a minute to build
 * and lay out while the jam waited (issue 23). Show all reveals the rest a
 * fold per frame, the same way a stream grows, so the window keeps
 * answering.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-markdown-render.h"
#include "sj-markdown-view-private.h"

typedef struct
{
  GtkWidget *widget;  /* owned by the view, as its child */
  gsize      offset;  /* where the block starts in the text */
} Block;

struct _SjMarkdownView
{
  GtkWidget           parent_instance;

  GString            *text;
  GArray             *blocks;        /* of Block */
  guint               n_finished;    /* blocks that no append can change */
  gboolean            dirty;         /* text was appended since the last render */
  guint               tick_id;

  SjMarkdownRenderer  renderer;
  guint               n_blocks_built;
  guint               n_renders;

  gsize               fold_bytes;    /* 0: never fold */
  gsize               rendered_end;  /* where the text rendered last ended */
  gsize               shown_limit;   /* bytes the view may render */
  GtkWidget          *show_all;      /* created when first folded */
  guint               reveal_id;
};

#define FOLD_BYTES (16 * 1024)
#define FOLD_LINES 400

G_DEFINE_FINAL_TYPE (SjMarkdownView, sj_markdown_view, GTK_TYPE_WIDGET)

enum {
  ACTIVATE_LINK,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
label_activate_link_cb (GtkLabel       *label,
                        const char     *uri,
                        SjMarkdownView *self)
{
  gboolean handled = FALSE;
  GtkRoot *root;

  g_signal_emit (self, signals[ACTIVATE_LINK], 0, uri, &handled);
  if (handled)
    return TRUE;

  /* The renderer only makes safe links clickable; checking again costs
   * nothing and keeps a file: or custom-scheme URI from ever being opened. */
  root = gtk_widget_get_root (GTK_WIDGET (self));
  if (sj_markdown_uri_is_safe (uri))
    gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);

  return TRUE;
}

/* Where each line of @text starts, the way cmark counts lines. */
static GArray *
line_starts (const char *text,
             gsize       length)
{
  GArray *starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize zero = 0;

  g_array_append_val (starts, zero);
  for (gsize i = 0; i < length; i++)
    {
      gsize next;

      if (text[i] == '\r' && i + 1 < length && text[i + 1] == '\n')
        i++;
      else if (text[i] != '\r' && text[i] != '\n')
        continue;
      next = i + 1;
      if (next < length)
        g_array_append_val (starts, next);
    }

  return starts;
}

static void
clear_blocks (SjMarkdownView *self,
              guint           from)
{
  for (guint i = from; i < self->blocks->len; i++)
    {
      Block *block = &g_array_index (self->blocks, Block, i);

      if (block->widget != NULL)
        gtk_widget_unparent (block->widget);
    }
  g_array_set_size (self->blocks, MIN (from, self->blocks->len));
}

/* Where the rendered text ends: all of it, or the end of the last line
 * within the fold (so many bytes, and so many lines: a list of short items
 * is a widget per line). */
static gsize
visible_end (SjMarkdownView *self)
{
  const char *text = self->text->str;
  gsize max_lines = self->shown_limit / self->fold_bytes * FOLD_LINES;
  gsize line_end = 0;
  gsize lines = 0;

  if (self->fold_bytes == 0 || self->text->len <= self->shown_limit)
    {
      for (gsize i = 0; self->fold_bytes > 0 && i < self->text->len; i++)
        if (text[i] == '\n' && ++lines >= max_lines && i + 1 < self->text->len)
          return i + 1;
      return self->text->len;
    }

  for (gsize i = 0; i < self->shown_limit; i++)
    if (text[i] == '\n')
      {
        line_end = i + 1;
        if (++lines >= max_lines)
          break;
      }

  /* One line longer than the fold: cut it at a character. */
  if (line_end == 0)
    line_end = g_utf8_find_prev_char (text, text + self->shown_limit + 1) - text;

  return line_end;
}

static void update_show_all (SjMarkdownView *self,
                             gsize           end);

static void
render (SjMarkdownView *self)
{
  gsize base;
  const char *tail;
  gsize length;
  cmark_node *document;
  g_autoptr(GArray) starts = NULL;
  g_autoptr(GPtrArray) old = g_ptr_array_new ();
  GtkWidget *previous = NULL;
  guint n_new = 0;
  guint last_start_line = 0;
  gboolean incomplete;
  gsize end;

  self->dirty = FALSE;
  self->n_renders++;

  end = visible_end (self);
  /* Folded, a stream that grows past the fold changes nothing shown. */
  if (end == self->rendered_end && end < self->text->len && self->blocks->len > 0)
    {
      update_show_all (self, end);
      return;
    }
  self->rendered_end = end;

  /* The last block is always unfinished; should a tail ever have parsed to
   * nothing, parsing goes on from the last block rather than skip text. */
  if (self->n_finished > 0 && self->n_finished == self->blocks->len)
    self->n_finished--;
  base = self->n_finished < self->blocks->len ? g_array_index (self->blocks, Block, self->n_finished).offset : 0;

  base = MIN (base, end);
  tail = self->text->str + base;
  length = end - base;
  document = sj_markdown_parse (tail, length);
  starts = line_starts (tail, length);
  incomplete = length > 0 && tail[length - 1] != '\n' && tail[length - 1] != '\r';

  for (guint i = self->n_finished; i < self->blocks->len; i++)
    g_ptr_array_add (old, g_array_index (self->blocks, Block, i).widget);
  g_array_set_size (self->blocks, self->n_finished);
  if (self->n_finished > 0)
    previous = g_array_index (self->blocks, Block, self->n_finished - 1).widget;

  for (cmark_node *node = cmark_node_first_child (document); node != NULL; node = cmark_node_next (node), n_new++)
    {
      GtkWidget *reused = n_new < old->len ? g_ptr_array_index (old, n_new) : NULL;
      Block block;
      int line = cmark_node_get_start_line (node);

      line = CLAMP (line, 1, (int)starts->len);
      last_start_line = line;
      block.offset = base + g_array_index (starts, gsize, line - 1);

      /* Updated in place or built, the block was parsed and rendered again,
       * and that is what the counter is for. */
      self->n_blocks_built++;
      if (reused != NULL && sj_markdown_render_update (reused, node))
        {
          g_ptr_array_index (old, n_new) = NULL;
          block.widget = reused;
        }
      else
        {
          block.widget = sj_markdown_render_block (&self->renderer, node);
          if (block.widget == NULL)
            {
              block.widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
              gtk_widget_set_visible (block.widget, FALSE);
            }
          gtk_widget_insert_after (block.widget, GTK_WIDGET (self), previous);
        }

      previous = block.widget;
      g_array_append_val (self->blocks, block);
    }

  for (guint i = 0; i < old->len; i++)
    {
      GtkWidget *widget = g_ptr_array_index (old, i);

      if (widget != NULL)
        gtk_widget_unparent (widget);
    }

  cmark_node_free (document);

  /* Every new block but the last is finished, and the one before the last
   * too when the last begins on the incomplete last line. */
  if (n_new > 0)
    {
      guint unfinished = (incomplete && last_start_line == starts->len && n_new > 1) ? 2 : 1;

      self->n_finished += n_new - unfinished;
    }

  update_show_all (self, end);
}

static gboolean
reveal_cb (GtkWidget     *widget,
           GdkFrameClock *frame_clock,
           gpointer       user_data)
{
  SjMarkdownView *self = SJ_MARKDOWN_VIEW (widget);

  self->shown_limit += self->fold_bytes;
  render (self);
  if (self->rendered_end < self->text->len)
    return G_SOURCE_CONTINUE;

  self->reveal_id = 0;
  return G_SOURCE_REMOVE;
}

static void
show_all_clicked_cb (SjMarkdownView *self)
{
  gtk_widget_set_sensitive (self->show_all, FALSE);
  if (self->reveal_id == 0)
    self->reveal_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), reveal_cb, NULL, NULL);
}

static void
update_show_all (SjMarkdownView *self,
                 gsize           end)
{
  g_autofree char *more = NULL;
  g_autofree char *label = NULL;

  if (end >= self->text->len)
    {
      if (self->show_all != NULL)
        gtk_widget_set_visible (self->show_all, FALSE);
      return;
    }

  if (self->show_all == NULL)
    {
      self->show_all = gtk_button_new ();
      gtk_widget_set_halign (self->show_all, GTK_ALIGN_START);
      gtk_widget_add_css_class (self->show_all, "pill");
      g_signal_connect_swapped (self->show_all, "clicked", G_CALLBACK (show_all_clicked_cb), self);
      gtk_widget_set_parent (self->show_all, GTK_WIDGET (self));
    }

  more = g_format_size (self->text->len - end);
  /* Translators: the button under a folded, very long answer; %s is a size such as "1.0 MB". */
  label = g_strdup_printf (_("Show All (%s More)"), more);
  gtk_button_set_label (GTK_BUTTON (self->show_all), label);
  gtk_widget_set_visible (self->show_all, TRUE);
  gtk_widget_set_sensitive (self->show_all, self->reveal_id == 0);
}

static gboolean
sj_markdown_view_tick_cb (GtkWidget     *widget,
                          GdkFrameClock *frame_clock,
                          gpointer       user_data)
{
  SjMarkdownView *self = SJ_MARKDOWN_VIEW (widget);

  self->tick_id = 0;
  if (self->dirty)
    render (self);

  return G_SOURCE_REMOVE;
}

static void
cancel_tick (SjMarkdownView *self)
{
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
}

static void
sj_markdown_view_dispose (GObject *object)
{
  SjMarkdownView *self = (SjMarkdownView *)object;

  cancel_tick (self);
  if (self->reveal_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->reveal_id);
  self->reveal_id = 0;
  if (self->blocks != NULL)
    clear_blocks (self, 0);
  g_clear_pointer (&self->show_all, gtk_widget_unparent);

  G_OBJECT_CLASS (sj_markdown_view_parent_class)->dispose (object);
}

static void
sj_markdown_view_finalize (GObject *object)
{
  SjMarkdownView *self = (SjMarkdownView *)object;

  g_string_free (self->text, TRUE);
  g_array_unref (self->blocks);

  G_OBJECT_CLASS (sj_markdown_view_parent_class)->finalize (object);
}

static void
sj_markdown_view_class_init (SjMarkdownViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_markdown_view_dispose;
  object_class->finalize = sj_markdown_view_finalize;

  /**
   * SjMarkdownView::activate-link:
   * @uri: the link's URI (http, https or mailto)
   *
   * A link was clicked. Without a handler that returns %TRUE, the view
   * opens it with gtk_show_uri().
   *
   * Returns: %TRUE if the link was handled
   */
  signals[ACTIVATE_LINK] = g_signal_new ("activate-link",
                                         G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST,
                                         0,
                                         g_signal_accumulator_true_handled, NULL,
                                         NULL,
                                         G_TYPE_BOOLEAN, 1,
                                         G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjmarkdownview");
}

static void
sj_markdown_view_init (SjMarkdownView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 9);

  self->text = g_string_new (NULL);
  self->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  self->renderer.activate_link_cb = G_CALLBACK (label_activate_link_cb);
  self->renderer.user_data = self;
  self->fold_bytes = FOLD_BYTES;
  self->shown_limit = FOLD_BYTES;
}

GtkWidget *
_sj_markdown_view_new (void)
{
  return g_object_new (SJ_TYPE_MARKDOWN_VIEW, NULL);
}

/**
 * sj_markdown_view_set_text:
 * @text: (nullable): the whole message
 *
 * Replaces the message and renders it at once.
 */
void
sj_markdown_view_set_text (SjMarkdownView *self,
                           const char     *text)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  cancel_tick (self);
  if (self->reveal_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->reveal_id);
  self->reveal_id = 0;
  clear_blocks (self, 0);
  self->n_finished = 0;
  self->rendered_end = 0;
  self->shown_limit = self->fold_bytes;
  g_string_assign (self->text, text != NULL ? text : "");
  render (self);
}

/**
 * _sj_markdown_view_get_text:
 *
 * Returns: the whole message, including text appended but not yet shown
 */
const char *
_sj_markdown_view_get_text (SjMarkdownView *self)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  return self->text->str;
}

/**
 * sj_markdown_view_append:
 * @delta: text that continues the message
 *
 * Adds a streamed piece of the message. It is shown on the next frame,
 * together with whatever else arrives before it.
 */
void
sj_markdown_view_append (SjMarkdownView *self,
                         const char     *delta)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  if (delta == NULL || *delta == '\0')
    return;

  g_string_append (self->text, delta);
  self->dirty = TRUE;
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), sj_markdown_view_tick_cb, NULL, NULL);
}

/**
 * _sj_markdown_view_flush:
 *
 * Shows the text appended so far now rather than on the next frame: at the
 * end of a stream, or in tests.
 */
void
_sj_markdown_view_flush (SjMarkdownView *self)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  cancel_tick (self);
  if (self->dirty)
    render (self);
}

/**
 * _sj_markdown_view_get_n_blocks_built:
 *
 * How many top-level blocks the view has rendered since it was created:
 * built as new widgets, or re-rendered into the widget that showed them
 * (a paragraph or code block that grows while it streams). Finished blocks
 * that were kept do not count. Tests use it to show that streaming does not
 * re-render the whole message.
 */
guint
_sj_markdown_view_get_n_blocks_built (SjMarkdownView *self)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  return self->n_blocks_built;
}

/**
 * _sj_markdown_view_get_n_renders:
 *
 * How many times the view has parsed and rendered its text; tests use it
 * to show that appends are coalesced to one render per frame.
 */
guint
_sj_markdown_view_get_n_renders (SjMarkdownView *self)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  return self->n_renders;
}

/**
 * _sj_markdown_view_set_fold:
 * @fold_bytes: how much of a long message is rendered before "Show all",
 *   0 never to fold
 */
void
_sj_markdown_view_set_fold (SjMarkdownView *self,
                            gsize           fold_bytes)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  self->fold_bytes = fold_bytes;
  self->shown_limit = fold_bytes;
}

/**
 * _sj_markdown_view_get_show_all:
 *
 * Returns: (nullable): the "Show all" button, if the view ever folded
 */
GtkWidget *
_sj_markdown_view_get_show_all (SjMarkdownView *self)
{
  g_assert (SJ_IS_MARKDOWN_VIEW (self));

  return self->show_all;
}
