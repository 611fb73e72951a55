/* sj-code-timeline.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The code timeline of the Sessions page: every version of the code the
 * current session played, newest first, with who wrote it, when, and the
 * cycle it landed on. Each older version has a Revert button.
 *
 * Reverting is the window's business: the timeline only emits
 * SjCodeTimeline::revert-requested with the code, and the window sends it
 * through the same quantized apply as any other change, so that a revert
 * lands on the beat and is itself undoable.
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "sj-code-timeline-private.h"
#include "sj-history-store.h"
#include "sj-relative-time.h"

struct _SjCodeTimeline
{
  GtkWidget   parent_instance;

  GtkListBox *list;
};

G_DEFINE_FINAL_TYPE (SjCodeTimeline, sj_code_timeline, GTK_TYPE_WIDGET)

enum {
  REVERT_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The first line with something on it: a leading blank line or indentation
 * would tell nothing apart. */
static char *
first_line (const char *code)
{
  g_auto(GStrv) lines = g_strsplit (code != NULL ? code : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (*line != '\0')
        return g_strdup (line);
    }

  return g_strdup (_("(empty)"));
}

/* "48" for a whole cycle, "47.5" otherwise: at most two decimals, which
 * is finer than anyone counts beats. */
static char *
format_cycle (double cycle)
{
  char *text = g_strdup_printf ("%.2f", cycle);
  char *end = text + strlen (text) - 1;

  while (*end == '0')
    *end-- = '\0';
  if (*end == '.')
    *end = '\0';

  return text;
}

static void
revert_clicked_cb (SjCodeTimeline *self,
                   GtkButton      *button)
{
  const char *code = g_object_get_data (G_OBJECT (button), "sj-code");

  g_assert (SJ_IS_CODE_TIMELINE (self));

  g_signal_emit (self, signals[REVERT_REQUESTED], 0, code);
}

static GtkWidget *
create_row (SjCodeTimeline          *self,
            const SjHistorySnapshot *snapshot,
            gboolean                 latest)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *source;
  GtkWidget *detail;
  GtkWidget *code;
  g_autofree char *when = sj_relative_time_format (snapshot->created, NULL);
  g_autofree char *detail_text = NULL;
  g_autofree char *line = first_line (snapshot->code);

  source = gtk_label_new (snapshot->source == SJ_HISTORY_SOURCE_AGENT ? _("by the agent") : _("by you"));
  gtk_label_set_xalign (GTK_LABEL (source), 0);
  gtk_widget_add_css_class (source, "heading");

  /* NaN or negative: not known (a change made while stopped, an Undo
   * before anything played), not "at cycle -1". */
  if (isnan (snapshot->cycle) || snapshot->cycle < 0)
    detail_text = g_strdup (when);
  else
    {
      g_autofree char *cycle = format_cycle (snapshot->cycle);
      /* TRANSLATORS: the cycle of the music a code change landed on, e.g. "at cycle 48" */
      g_autofree char *at_cycle = g_strdup_printf (_("at cycle %s"), cycle);

      /* TRANSLATORS: when a code change happened and where, e.g. "5 min ago · at cycle 48" */
      detail_text = g_strdup_printf (_("%s · %s"), when, at_cycle);
    }
  detail = gtk_label_new (detail_text);
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  gtk_label_set_ellipsize (GTK_LABEL (detail), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (detail, "dim-label");
  gtk_widget_add_css_class (detail, "caption");

  code = gtk_label_new (line);
  gtk_label_set_xalign (GTK_LABEL (code), 0);
  gtk_label_set_ellipsize (GTK_LABEL (code), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (code), TRUE);
  gtk_widget_add_css_class (code, "monospace");

  gtk_widget_set_hexpand (labels, TRUE);
  gtk_box_append (GTK_BOX (labels), source);
  gtk_box_append (GTK_BOX (labels), detail);
  gtk_box_append (GTK_BOX (labels), code);
  gtk_box_append (GTK_BOX (box), labels);

  /* The latest version is the code playing now: nothing to revert to. */
  if (!latest)
    {
      GtkWidget *revert = gtk_button_new_with_mnemonic (_("_Revert"));
      /* TRANSLATORS: the accessible description of a Revert button, e.g. "Play the code from 5 min ago again" */
      g_autofree char *description = g_strdup_printf (_("Play the code from %s again"), when);

      gtk_widget_set_valign (revert, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (revert, _("Play this version of the code again"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (revert), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
      g_object_set_data_full (G_OBJECT (revert), "sj-code", g_strdup (snapshot->code), g_free);
      g_signal_connect_object (revert, "clicked", G_CALLBACK (revert_clicked_cb), self, G_CONNECT_SWAPPED);
      gtk_box_append (GTK_BOX (box), revert);
    }

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  /* Rows only carry their Revert button; activating one does nothing. */
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);

  return row;
}

static void
sj_code_timeline_dispose (GObject *object)
{
  SjCodeTimeline *self = (SjCodeTimeline *)object;

  if (self->list != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->list));
      self->list = NULL;
    }

  G_OBJECT_CLASS (sj_code_timeline_parent_class)->dispose (object);
}

static void
sj_code_timeline_class_init (SjCodeTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_code_timeline_dispose;

  /**
   * SjCodeTimeline::revert-requested:
   * @code: the code to play again
   */
  signals[REVERT_REQUESTED] =
    g_signal_new ("revert-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjcodetimeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sj_code_timeline_init (SjCodeTimeline *self)
{
  GtkWidget *placeholder = gtk_label_new (_("No code changes in this session yet"));

  gtk_widget_add_css_class (placeholder, "dim-label");
  gtk_label_set_wrap (GTK_LABEL (placeholder), TRUE);
  gtk_widget_set_margin_top (placeholder, 12);
  gtk_widget_set_margin_bottom (placeholder, 12);

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_list_box_set_placeholder (self->list, placeholder);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Code timeline"), -1);
  gtk_widget_set_parent (GTK_WIDGET (self->list), GTK_WIDGET (self));
}

/**
 * sj_code_timeline_set_snapshots:
 * @snapshots: (nullable) (element-type SjHistorySnapshot): the versions of
 *   the code, oldest first as sj_history_store_list_snapshots() gives them,
 *   or %NULL for none
 */
void
sj_code_timeline_set_snapshots (SjCodeTimeline *self,
                                GPtrArray      *snapshots)
{
  GtkWidget *child;

  g_assert (SJ_IS_CODE_TIMELINE (self));

  /* By position, not by child: the placeholder is a child too. */
  while ((child = GTK_WIDGET (gtk_list_box_get_row_at_index (self->list, 0))) != NULL)
    gtk_list_box_remove (self->list, child);

  if (snapshots == NULL)
    return;

  for (guint i = snapshots->len; i > 0; i--)
    gtk_list_box_append (self->list, create_row (self, g_ptr_array_index (snapshots, i - 1), i == snapshots->len));
}

/* Returns: how many versions the timeline lists. */
guint
_sj_code_timeline_get_n_rows (SjCodeTimeline *self)
{
  guint n = 0;

  g_assert (SJ_IS_CODE_TIMELINE (self));

  while (gtk_list_box_get_row_at_index (self->list, n) != NULL)
    n++;

  return n;
}
