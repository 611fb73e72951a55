/* sj-code-block.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A fenced code block of an assistant message: the code, highlighted and
 * read-only, under a small header with the fence's language, a Copy button
 * and an Apply button. Copy puts the exact code on the clipboard; Apply
 * activates the window's win.apply-code with it, because changing the live
 * pattern is the business of the window's apply pipeline (dry run,
 * quantized swap, undo), never of a view.
 *
 * Strudel code is JavaScript, so js, javascript, strudel and unlabelled
 * fences are highlighted as "js"; other fences use the GtkSourceView
 * language of that name when there is one. The colours follow the light or
 * dark style of the application.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sj-code-block-private.h"

struct _SjCodeBlock
{
  GtkWidget        parent_instance;

  char            *code;
  char            *language;

  GtkBox          *box;
  GtkSourceBuffer *buffer;
  GtkSourceView   *view;
  guint            remeasure;  /* idle asking for a new size */
};

G_DEFINE_FINAL_TYPE (SjCodeBlock, sj_code_block, GTK_TYPE_WIDGET)

/* Fence names that are not GtkSourceView language ids, mapped to the id
 * that highlights them. */
static const struct {
  const char *fence;
  const char *id;
} language_aliases[] = {
  { "", "js" },
  { "strudel", "js" },
  { "javascript", "js" },
  { "mjs", "js" },
  { "ts", "typescript" },
  { "py", "python3" },
  { "python", "python3" },
  { "bash", "sh" },
  { "shell", "sh" },
  { "zsh", "sh" },
  { "console", "sh" },
  { "c++", "cpp" },
  { "md", "markdown" },
  { "yml", "yaml" },
  { "rs", "rust" },
};

static GtkSourceLanguage *
find_language (const char *fence)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  g_autofree char *lower = g_ascii_strdown (fence, -1);
  const char *id = lower;

  for (guint i = 0; i < G_N_ELEMENTS (language_aliases); i++)
    {
      if (g_str_equal (lower, language_aliases[i].fence))
        {
          id = language_aliases[i].id;
          break;
        }
    }

  return gtk_source_language_manager_get_language (manager, id);
}

static void
update_style_scheme (SjCodeBlock *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme;

  scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");
  gtk_source_buffer_set_style_scheme (self->buffer, scheme);
}

static void
style_manager_dark_changed_cb (SjCodeBlock *self)
{
  update_style_scheme (self);
}

static void
copy_clicked_cb (SjCodeBlock *self)
{
  sj_code_block_copy (self);
}

static void
apply_clicked_cb (SjCodeBlock *self)
{
  sj_code_block_apply (self);
}

/* The text view lays its lines out on an idle after the frame that
 * measured it, and then asks for no new size: inside the list of the chat,
 * a block whose code streamed in stayed as tall as its header, the code
 * hidden. Once the lines are laid out (a lower priority than the text
 * view's own idle), the block asks again. */
static gboolean
remeasure_cb (gpointer data)
{
  SjCodeBlock *self = data;

  self->remeasure = 0;
  gtk_widget_queue_resize (GTK_WIDGET (self));
  return G_SOURCE_REMOVE;
}

static void
queue_remeasure (SjCodeBlock *self)
{
  if (self->remeasure == 0)
    self->remeasure = g_idle_add (remeasure_cb, self);
}

static GtkWidget *
build_header (SjCodeBlock *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (self->language);
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  GtkWidget *apply = gtk_button_new_with_mnemonic (_("_Apply"));

  gtk_widget_set_margin_start (header, 6);
  gtk_widget_set_margin_end (header, 6);
  gtk_widget_set_margin_top (header, 3);

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_add_css_class (title, "dim-label");
  gtk_widget_add_css_class (title, "caption");
  gtk_box_append (GTK_BOX (header), title);

  gtk_widget_add_css_class (copy, "flat");
  gtk_widget_add_css_class (copy, "sj-code-copy");
  gtk_widget_set_tooltip_text (copy, _("Copy the code"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (copy), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Copy"), -1);
  g_signal_connect_swapped (copy, "clicked", G_CALLBACK (copy_clicked_cb), self);
  gtk_box_append (GTK_BOX (header), copy);

  gtk_widget_add_css_class (apply, "flat");
  gtk_widget_add_css_class (apply, "sj-code-apply");
  gtk_widget_set_tooltip_text (apply, _("Apply this code to the pattern"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (apply), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Apply the code to the pattern"), -1);
  g_signal_connect_swapped (apply, "clicked", G_CALLBACK (apply_clicked_cb), self);
  gtk_box_append (GTK_BOX (header), apply);

  return header;
}

static void
sj_code_block_dispose (GObject *object)
{
  SjCodeBlock *self = (SjCodeBlock *)object;

  g_clear_handle_id (&self->remeasure, g_source_remove);
  if (self->box != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->box));
      self->box = NULL;
      self->view = NULL;
    }
  g_clear_object (&self->buffer);

  G_OBJECT_CLASS (sj_code_block_parent_class)->dispose (object);
}

static void
sj_code_block_finalize (GObject *object)
{
  SjCodeBlock *self = (SjCodeBlock *)object;

  g_free (self->code);
  g_free (self->language);

  G_OBJECT_CLASS (sj_code_block_parent_class)->finalize (object);
}

static void
sj_code_block_class_init (SjCodeBlockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_code_block_dispose;
  object_class->finalize = sj_code_block_finalize;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjcodeblock");
}

static void
sj_code_block_init (SjCodeBlock *self)
{
}

/**
 * sj_code_block_new:
 * @code: the code, shown and copied exactly
 * @language: (nullable): the fence's language, %NULL or "" when unlabelled
 */
GtkWidget *
sj_code_block_new (const char *code,
                   const char *language)
{
  SjCodeBlock *self = g_object_new (SJ_TYPE_CODE_BLOCK, NULL);
  GtkWidget *scroller;

  self->code = g_strdup (code != NULL ? code : "");
  self->language = g_strdup (language != NULL ? language : "");

  self->box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 0));
  gtk_widget_add_css_class (GTK_WIDGET (self->box), "card");
  gtk_widget_set_parent (GTK_WIDGET (self->box), GTK_WIDGET (self));
  gtk_box_append (self->box, build_header (self));

  /* Unknown languages are shown without highlighting. */
  self->buffer = gtk_source_buffer_new (NULL);
  gtk_source_buffer_set_language (self->buffer, find_language (self->language));
  gtk_source_buffer_set_highlight_syntax (self->buffer, TRUE);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), self->code, -1);
  update_style_scheme (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (style_manager_dark_changed_cb), self, G_CONNECT_SWAPPED);

  /* Long lines scroll sideways rather than wrap: wrapped code is hard to
   * read and easy to misread. */
  self->view = GTK_SOURCE_VIEW (gtk_source_view_new_with_buffer (self->buffer));
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (self->view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->view), TRUE);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (self->view), 9);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (self->view), 9);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (self->view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (self->view), 9);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Code"), -1);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->view));
  gtk_box_append (self->box, scroller);
  queue_remeasure (self);

  return GTK_WIDGET (self);
}

const char *
_sj_code_block_get_code (SjCodeBlock *self)
{
  g_assert (SJ_IS_CODE_BLOCK (self));

  return self->code;
}

const char *
sj_code_block_get_language (SjCodeBlock *self)
{
  g_assert (SJ_IS_CODE_BLOCK (self));

  return self->language;
}

/* While a fence streams in, the block grows frame by frame: the text is
 * replaced in place so that the view keeps its scroll position and the
 * buttons stay where the pointer is. */
void
sj_code_block_set_code (SjCodeBlock *self,
                        const char  *code)
{
  g_assert (SJ_IS_CODE_BLOCK (self));

  if (code == NULL)
    code = "";
  if (g_str_equal (code, self->code))
    return;

  g_free (self->code);
  self->code = g_strdup (code);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), self->code, -1);
  queue_remeasure (self);
}

GtkWidget *
_sj_code_block_get_view (SjCodeBlock *self)
{
  g_assert (SJ_IS_CODE_BLOCK (self));

  return GTK_WIDGET (self->view);
}

void
sj_code_block_copy (SjCodeBlock *self)
{
  g_assert (SJ_IS_CODE_BLOCK (self));

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), self->code);
}

void
sj_code_block_apply (SjCodeBlock *self)
{
  g_autofree char *code = NULL;

  g_assert (SJ_IS_CODE_BLOCK (self));

  /* Straight to the window's action: the answer, its row and the chat
   * panel have nothing to add. A copy, as the stream may replace the code
   * meanwhile. */
  code = g_strdup (self->code);
  if (!gtk_widget_activate_action (GTK_WIDGET (self), "win.apply-code", "s", code))
    g_warning ("A code block's Apply found no win.apply-code action");
}
