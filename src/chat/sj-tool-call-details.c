/* sj-tool-call-details.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A tool call's input or output as the chat shows it to a musician: one
 * line per member, its name and its value in words (code as code, lists
 * as lists), not the JSON the Logs page shows a developer. Everything is
 * redacted, and long values and many members are cut with a note (Copy
 * still gives the whole).
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-json.h"
#include "sj-redact.h"
#include "sj-tool-call-details.h"

/* Code and other text that keeps its lines: monospace, in a card. */
static gboolean
looks_like_code (const char *text)
{
  return strchr (text, '\n') != NULL || strstr (text, "(\"") != NULL || strstr (text, ").") != NULL;
}

static char *
shorten (const char *text)
{
  glong length = g_utf8_strlen (text, -1);
  g_autofree char *head = NULL;

  if (length <= SJ_TOOL_CALL_DETAILS_MAX_CHARS)
    return g_strdup (text);

  head = g_utf8_substring (text, 0, SJ_TOOL_CALL_DETAILS_MAX_CHARS);
  /* TRANSLATORS: after a long value cut short in a tool call's details */
  return g_strdup_printf (_("%s… (%ld more characters: Copy gives them all)"), head,
                          length - SJ_TOOL_CALL_DETAILS_MAX_CHARS);
}

/* A scalar in words, or NULL when @node is an object or an array of them. */
static char *
scalar_text (JsonNode *node)
{
  if (JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("—");
  if (!JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return g_strdup (json_node_get_string (node));
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? C_("tool call value", "yes") : C_("tool call value", "no"));
    default:
      {
        g_autofree char *json = sj_json_to_string (node, FALSE);

        return g_steal_pointer (&json);
      }
    }
}

/* The value of a member in words: a scalar as is, a list of scalars
 * joined, a list of objects one bullet each, an object "name: value" per
 * line; past six levels, compact JSON. */
static char *
value_text (JsonNode *node,
            guint     depth)
{
  char *text = scalar_text (node);
  g_autoptr(GString) out = NULL;

  if (text != NULL)
    return text;
  if (depth >= 6)
    return sj_json_to_string (node, FALSE);

  out = g_string_new (NULL);
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint n = json_array_get_length (array);
      gboolean scalars = TRUE;

      if (n == 0)
        return g_strdup (C_("tool call value", "none"));
      for (guint i = 0; i < n && scalars; i++)
        scalars = !JSON_NODE_HOLDS_OBJECT (json_array_get_element (array, i)) &&
                  !JSON_NODE_HOLDS_ARRAY (json_array_get_element (array, i));
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *element = value_text (json_array_get_element (array, i), depth + 1);

          if (scalars)
            g_string_append_printf (out, "%s%s", i > 0 ? ", " : "", element);
          else
            g_string_append_printf (out, "%s• %s", i > 0 ? "\n" : "", element);
        }
    }
  else
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;
      gboolean first = TRUE;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          g_autofree char *inner = value_text (member, depth + 1);

          /* Inside a list, one line per object. */
          g_string_append_printf (out, "%s%s: %s", first ? "" : (depth > 1 ? "; " : "\n"), name, inner);
          first = FALSE;
        }
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Code a string holds, shown as code. */
static gboolean
is_code (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
         looks_like_code (json_node_get_string (node));
}

static GtkWidget *
value_label (const char *text,
             gboolean    code)
{
  g_autofree char *redacted = sj_redact (text);
  g_autofree char *shown = shorten (redacted);
  GtkWidget *label = gtk_label_new (shown);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "sj-tool-call-value");
  if (code)
    {
      gtk_widget_add_css_class (label, "monospace");
      gtk_widget_add_css_class (label, "card");
      gtk_widget_add_css_class (label, "sj-tool-call-code");
    }

  return label;
}

/**
 * sj_tool_call_details_new:
 * @json: (nullable): the call's arguments or result
 * @accessible_label: what a screen reader calls the whole ("Input")
 *
 * Returns: (transfer floating): the details, one member per line
 */
GtkWidget *
sj_tool_call_details_new (const char *json,
                          const char *accessible_label)
{
  g_autoptr(JsonNode) root = json != NULL ? sj_json_parse (json, -1, NULL, NULL) : NULL;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  guint shown = 0, total;

  gtk_widget_add_css_class (box, "sj-tool-call-details");
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);

  /* Not an object (or not JSON): the text itself. */
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *text = root != NULL ? value_text (root, 0) : g_strdup (json != NULL ? json : "");

      gtk_box_append (GTK_BOX (box), value_label (text, root != NULL && is_code (root)));
      return box;
    }

  total = json_object_get_size (json_node_get_object (root));
  if (total == 0)
    {
      GtkWidget *none = gtk_label_new (C_("tool call details", "Nothing"));

      gtk_label_set_xalign (GTK_LABEL (none), 0);
      gtk_widget_add_css_class (none, "dim-label");
      gtk_box_append (GTK_BOX (box), none);
      return box;
    }

  json_object_iter_init_ordered (&iter, json_node_get_object (root));
  while (shown < SJ_TOOL_CALL_DETAILS_MAX_MEMBERS && json_object_iter_next_ordered (&iter, &name, &member))
    {
      g_autofree char *text = value_text (member, 0);
      GtkWidget *key = gtk_label_new (name);

      gtk_label_set_xalign (GTK_LABEL (key), 0);
      gtk_widget_add_css_class (key, "caption");
      gtk_widget_add_css_class (key, "dim-label");
      gtk_widget_add_css_class (key, "sj-tool-call-key");
      if (shown > 0)
        gtk_widget_set_margin_top (key, 4);
      gtk_box_append (GTK_BOX (box), key);
      gtk_box_append (GTK_BOX (box), value_label (text, is_code (member)));
      shown++;
    }

  if (shown < total)
    {
      /* TRANSLATORS: under a tool call's details cut short */
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more: Copy gives them all",
                                                            "%u more: Copy gives them all", total - shown),
                                               total - shown);
      GtkWidget *label = gtk_label_new (more);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (GTK_BOX (box), label);
    }

  return box;
}
