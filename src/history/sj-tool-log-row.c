/* sj-tool-log-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One finished tool call of the agent, as the Tool Logs page lists it.
 * Collapsed, the row is a single line: the call's status, the tool's
 * name, what it did and how long it took. Expanded, it shows the call's
 * input and output as pretty, highlighted, read-only JSON, with a Copy
 * button for both.
 *
 * In the chat (sj_tool_log_row_new_readable ()), the summary wraps rather
 * than being cut, and the expanded details are in words
 * (SjToolCallDetails), not JSON.
 *
 * Only finished calls are ever logged, so there is no running state to
 * show. A session can hold hundreds of calls: the JSON views are built the
 * first time a row is expanded, never for rows only glanced at. Everything
 * shown or copied goes through sj_redact ().
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sj-redact.h"
#include "sj-tool-call-details.h"
#include "sj-tool-log-row-private.h"
#include "sj-tool-summary.h"

struct _SjToolLogRow
{
  GtkWidget            parent_instance;

  gint64               id;
  char                *name;
  char                *arguments;
  char                *result;
  char                *summary;
  SjHistoryToolStatus  status;
  gint64               duration_ms;

  GtkExpander         *expander;
  GtkLabel            *summary_label;
  GtkWidget           *header;
  GtkSourceBuffer     *input_buffer;
  GtkSourceBuffer     *output_buffer;  /* NULL when the call has no result */
  gboolean             built;
  gboolean             readable;       /* the chat's: words, not JSON */
};

G_DEFINE_FINAL_TYPE (SjToolLogRow, sj_tool_log_row, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_EXPANDED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const struct {
  const char *icon_name;
  const char *css_class;
  const char *title;
} status_specs[] = {
  [SJ_HISTORY_TOOL_SUCCEEDED] = { "emblem-ok-symbolic", "success", N_("Succeeded") },
  [SJ_HISTORY_TOOL_FAILED] = { "dialog-error-symbolic", "error", N_("Failed") },
  [SJ_HISTORY_TOOL_CANCELED] = { "process-stop-symbolic", "dim-label", N_("Canceled") },
};

static void
update_style_scheme (SjToolLogRow *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme;

  scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");
  if (self->input_buffer != NULL)
    gtk_source_buffer_set_style_scheme (self->input_buffer, scheme);
  if (self->output_buffer != NULL)
    gtk_source_buffer_set_style_scheme (self->output_buffer, scheme);
}

static void
style_manager_dark_changed_cb (SjToolLogRow *self)
{
  update_style_scheme (self);
}

static void
copy_clicked_cb (SjToolLogRow *self)
{
  sj_tool_log_row_copy (self);
}

static GtkWidget *
build_heading (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_add_css_class (label, "caption-heading");

  return label;
}

/* A read-only view of @json, already pretty and redacted. Long strings
 * (read_code's code) wrap rather than widen the side panel. */
static GtkWidget *
build_json_view (const char       *json,
                 const char       *css_class,
                 const char       *accessible_label,
                 GtkSourceBuffer **out_buffer)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = gtk_source_buffer_new (NULL);
  GtkWidget *view;

  gtk_source_buffer_set_language (buffer, gtk_source_language_manager_get_language (languages, "json"));
  gtk_source_buffer_set_highlight_syntax (buffer, TRUE);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), json, -1);

  view = gtk_source_view_new_with_buffer (buffer);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 9);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 9);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_widget_add_css_class (view, "card");
  gtk_widget_add_css_class (view, css_class);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);

  *out_buffer = buffer;
  return view;
}

static void
build_details (SjToolLogRow *self)
{
  g_autofree char *input = sj_tool_summary_pretty_json (self->arguments);
  g_autofree char *output = sj_tool_summary_pretty_json (self->result);
  GtkWidget *details = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *input_header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");

  self->built = TRUE;

  gtk_widget_set_margin_top (details, 6);
  gtk_widget_set_margin_bottom (details, 6);

  gtk_widget_add_css_class (copy, "flat");
  gtk_widget_add_css_class (copy, "sj-tool-log-copy");
  gtk_widget_set_tooltip_text (copy, _("Copy input and output"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (copy), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Copy input and output"), -1);
  g_signal_connect_swapped (copy, "clicked", G_CALLBACK (copy_clicked_cb), self);

  gtk_box_append (GTK_BOX (input_header), build_heading (_("Input")));
  gtk_box_append (GTK_BOX (input_header), copy);
  gtk_box_append (GTK_BOX (details), input_header);

  if (self->readable)
    {
      gtk_box_append (GTK_BOX (details), sj_tool_call_details_new (self->arguments, _("Input")));
      gtk_box_append (GTK_BOX (details), build_heading (_("Output")));
      gtk_box_append (GTK_BOX (details), self->result != NULL
                                         ? sj_tool_call_details_new (self->result, _("Output"))
                                         : gtk_label_new (_("No output")));
      gtk_expander_set_child (self->expander, details);
      return;
    }

  gtk_box_append (GTK_BOX (details),
                  build_json_view (input, "sj-tool-log-input", _("Input"), &self->input_buffer));

  gtk_box_append (GTK_BOX (details), build_heading (_("Output")));
  if (output != NULL)
    gtk_box_append (GTK_BOX (details),
                    build_json_view (output, "sj-tool-log-output", _("Output"), &self->output_buffer));
  else
    {
      GtkWidget *none = gtk_label_new (_("No output"));

      gtk_label_set_xalign (GTK_LABEL (none), 0);
      gtk_widget_add_css_class (none, "dim-label");
      gtk_box_append (GTK_BOX (details), none);
    }

  update_style_scheme (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (style_manager_dark_changed_cb), self, G_CONNECT_SWAPPED);

  gtk_expander_set_child (self->expander, details);
}

static void
expander_expanded_cb (SjToolLogRow *self)
{
  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  if (gtk_expander_get_expanded (self->expander) && !self->built)
    build_details (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPANDED]);
}

static GtkWidget *
build_header (SjToolLogRow *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *icon = gtk_image_new_from_icon_name (status_specs[self->status].icon_name);
  GtkWidget *name = gtk_label_new (self->name);
  GtkWidget *summary = gtk_label_new (self->summary);
  g_autofree char *duration_text = sj_tool_summary_duration (self->duration_ms);
  GtkWidget *duration = gtk_label_new (duration_text);

  gtk_widget_add_css_class (icon, status_specs[self->status].css_class);
  gtk_widget_add_css_class (icon, "sj-tool-log-status");
  gtk_widget_set_tooltip_text (icon, _(status_specs[self->status].title));
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _(status_specs[self->status].title), -1);
  gtk_box_append (GTK_BOX (header), icon);

  gtk_widget_add_css_class (name, "monospace");
  gtk_widget_add_css_class (name, "sj-tool-log-name");
  gtk_box_append (GTK_BOX (header), name);

  gtk_label_set_xalign (GTK_LABEL (summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (summary), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (summary), TRUE);
  gtk_widget_set_hexpand (summary, TRUE);
  gtk_widget_set_tooltip_text (summary, self->summary);
  gtk_widget_add_css_class (summary, "dim-label");
  gtk_widget_add_css_class (summary, "sj-tool-log-summary");
  gtk_box_append (GTK_BOX (header), summary);
  self->summary_label = GTK_LABEL (summary);

  gtk_widget_add_css_class (duration, "dim-label");
  gtk_widget_add_css_class (duration, "numeric");
  gtk_widget_add_css_class (duration, "caption");
  gtk_widget_add_css_class (duration, "sj-tool-log-duration");
  gtk_box_append (GTK_BOX (header), duration);

  return header;
}

static void
sj_tool_log_row_dispose (GObject *object)
{
  SjToolLogRow *self = (SjToolLogRow *)object;

  if (self->expander != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->expander));
      self->expander = NULL;
    }
  g_clear_object (&self->input_buffer);
  g_clear_object (&self->output_buffer);

  G_OBJECT_CLASS (sj_tool_log_row_parent_class)->dispose (object);
}

static void
sj_tool_log_row_finalize (GObject *object)
{
  SjToolLogRow *self = (SjToolLogRow *)object;

  g_free (self->name);
  g_free (self->arguments);
  g_free (self->result);
  g_free (self->summary);

  G_OBJECT_CLASS (sj_tool_log_row_parent_class)->finalize (object);
}

static void
sj_tool_log_row_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  SjToolLogRow *self = SJ_TOOL_LOG_ROW (object);

  switch (prop_id)
    {
    case PROP_EXPANDED:
      g_value_set_boolean (value, sj_tool_log_row_get_expanded (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_tool_log_row_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  SjToolLogRow *self = SJ_TOOL_LOG_ROW (object);

  switch (prop_id)
    {
    case PROP_EXPANDED:
      sj_tool_log_row_set_expanded (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_tool_log_row_class_init (SjToolLogRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_tool_log_row_dispose;
  object_class->finalize = sj_tool_log_row_finalize;
  object_class->get_property = sj_tool_log_row_get_property;
  object_class->set_property = sj_tool_log_row_set_property;

  /**
   * SjToolLogRow:expanded:
   *
   * Whether the call's input and output are shown.
   */
  properties[PROP_EXPANDED] =
    g_param_spec_boolean ("expanded", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjtoollogrow");
}

static void
sj_tool_log_row_init (SjToolLogRow *self)
{
}

/**
 * sj_tool_log_row_new:
 * @call: a finished call; the row keeps what it needs
 */
GtkWidget *
sj_tool_log_row_new (const SjHistoryToolCall *call)
{
  SjToolLogRow *self;
  g_autofree char *summary = NULL;
  g_autofree char *accessible_label = NULL;

  g_return_val_if_fail (call != NULL, NULL);
  g_return_val_if_fail (call->status < G_N_ELEMENTS (status_specs), NULL);

  self = g_object_new (SJ_TYPE_TOOL_LOG_ROW, NULL);
  self->id = call->id;
  self->name = g_strdup (call->name != NULL ? call->name : "");
  self->arguments = g_strdup (call->arguments != NULL ? call->arguments : "{}");
  self->result = g_strdup (call->result);
  self->status = call->status;
  self->duration_ms = call->duration_ms;
  summary = sj_tool_summary_line (call);
  self->summary = sj_redact (summary);

  self->expander = GTK_EXPANDER (gtk_expander_new (NULL));
  self->header = build_header (self);
  gtk_expander_set_label_widget (self->expander, self->header);
  gtk_widget_set_hexpand (GTK_WIDGET (self->expander), TRUE);
  gtk_widget_set_parent (GTK_WIDGET (self->expander), GTK_WIDGET (self));
  g_signal_connect_object (self->expander, "notify::expanded",
                           G_CALLBACK (expander_expanded_cb), self, G_CONNECT_SWAPPED);

  /* TRANSLATORS: the accessible label of a tool log row's expander: the
   * tool's name, the call's status and what it did, e.g.
   * "read_code, Succeeded: read 12 lines" */
  accessible_label = g_strdup_printf (_("%s, %s: %s"), self->name, _(status_specs[self->status].title),
                                      self->summary);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->expander), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  accessible_label, -1);

  return GTK_WIDGET (self);
}

/**
 * sj_tool_log_row_new_readable:
 * @call: a finished call; the row keeps what it needs
 *
 * The row as the chat shows it under an answer: its summary whole (it
 * wraps), its details in words.
 */
GtkWidget *
sj_tool_log_row_new_readable (const SjHistoryToolCall *call)
{
  SjToolLogRow *self = SJ_TOOL_LOG_ROW (sj_tool_log_row_new (call));

  self->readable = TRUE;
  gtk_label_set_single_line_mode (self->summary_label, FALSE);
  gtk_label_set_wrap (self->summary_label, TRUE);
  gtk_label_set_wrap_mode (self->summary_label, PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (self->summary_label, 4);

  return GTK_WIDGET (self);
}

gint64
_sj_tool_log_row_get_id (SjToolLogRow *self)
{
  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  return self->id;
}

/* Returns: the one-line summary, redacted; "" when there is none. */
const char *
_sj_tool_log_row_get_summary (SjToolLogRow *self)
{
  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  return self->summary;
}

gboolean
sj_tool_log_row_get_expanded (SjToolLogRow *self)
{
  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  return gtk_expander_get_expanded (self->expander);
}

void
sj_tool_log_row_set_expanded (SjToolLogRow *self,
                              gboolean      expanded)
{
  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  gtk_expander_set_expanded (self->expander, expanded);
}

/**
 * sj_tool_log_row_get_copy_text:
 *
 * Returns: (transfer full): what the Copy button puts on the clipboard:
 *   the input and output, pretty and redacted
 */
char *
sj_tool_log_row_get_copy_text (SjToolLogRow *self)
{
  g_autofree char *input = NULL;
  g_autofree char *output = NULL;
  g_autofree char *text = NULL;

  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  input = sj_tool_summary_pretty_json (self->arguments);
  output = sj_tool_summary_pretty_json (self->result);
  text = g_strdup_printf ("%s (%s)\n\n%s\n%s\n\n%s\n%s\n",
                          self->name, _(status_specs[self->status].title),
                          _("Input"), input,
                          _("Output"), output != NULL ? output : _("No output"));

  /* Each part is redacted already; the whole is too, in case a secret was
   * split across parts or registered meanwhile. */
  return sj_redact (text);
}

/**
 * sj_tool_log_row_copy:
 *
 * Puts the call's input and output on the clipboard, redacted.
 */
void
sj_tool_log_row_copy (SjToolLogRow *self)
{
  g_autofree char *text = NULL;

  g_assert (SJ_IS_TOOL_LOG_ROW (self));

  text = sj_tool_log_row_get_copy_text (self);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
}

/**
 * sj_tool_log_row_set_origin:
 * @origin: the MCP client that made the call (issue 34)
 *
 * Says in the row, and to a screen reader, that the call came from that
 * client rather than from the app's own agent.
 */
void
sj_tool_log_row_set_origin (SjToolLogRow *self,
                            const char   *origin)
{
  g_autofree char *text = NULL;
  g_autofree char *accessible_label = NULL;
  GtkWidget *label;

  g_return_if_fail (SJ_IS_TOOL_LOG_ROW (self));
  g_return_if_fail (origin != NULL);

  /* TRANSLATORS: in a tool log row, who made the call: %s is the name an
   * MCP client gave itself, e.g. "claude-code" */
  text = g_strdup_printf (_("from %s"), origin);
  label = gtk_label_new (text);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "accent");
  gtk_widget_add_css_class (label, "sj-tool-log-origin");
  gtk_box_insert_child_after (GTK_BOX (self->header), label, gtk_widget_get_first_child (self->header));
  /* TRANSLATORS: the accessible label of a tool log row made by an MCP
   * client: the tool's name, the client, the call's status and what it
   * did, e.g. "read_code from claude-code, Succeeded: read 12 lines" */
  accessible_label = g_strdup_printf (_("%s from %s, %s: %s"), self->name, origin,
                                      _(status_specs[self->status].title), self->summary);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->expander), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  accessible_label, -1);
}
