/* sj-reference-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Reference page of the side panel: Strudel's own documentation of
 * every function, searched with the same forgiving matching as the agent's
 * strudel_knowledge tool (typos, synonyms, prefixes, words of the
 * description), so that "cutof" finds lpf. Chips narrow the list to a tag
 * or a package. An entry opens into its description, parameters and
 * examples; each example can be inserted into the editor at the cursor as
 * one undoable edit, without playing it.
 *
 * The page only shows knowledge. Inserting is the window's business: the
 * page emits SjReferencePage::insert-requested and the window asks the
 * REPL.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-chip-bar.h"
#include "sj-knowledge-item.h"
#include "sj-reference-entry-view.h"
#include "sj-reference-page-private.h"

/* What a chip lets through: every entry, entries with a tag, or entries
 * of a package. */
typedef struct
{
  char *tag;     /* or NULL */
  char *source;  /* or NULL */
} Chip;

struct _SjReferencePage
{
  GtkWidget                 parent_instance;

  SjKnowledge              *knowledge;
  GListStore               *results;
  GArray                   *sorted;   /* entry positions by name, for an empty search */
  GPtrArray                *chips;    /* of Chip, as in chip_bar; the first is "All" */
  gboolean                  opened_from_list;

  /* Template widgets */
  GtkStack                 *stack;
  GtkSearchEntry           *search_entry;
  SjChipBar                *chip_bar;
  GtkStack                 *results_stack;
  GtkListView              *list_view;
  GtkSignalListItemFactory *factory;
  GtkButton                *back_button;
  GtkLabel                 *detail_title;
  GtkScrolledWindow        *detail_scroller;
  SjReferenceEntryView     *entry_view;
};

G_DEFINE_FINAL_TYPE (SjReferencePage, sj_reference_page, GTK_TYPE_WIDGET)

enum {
  INSERT_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
chip_free (gpointer data)
{
  Chip *chip = data;

  g_free (chip->tag);
  g_free (chip->source);
  g_free (chip);
}

static SjReferenceIndex *
get_reference (SjReferencePage *self)
{
  return sj_knowledge_get_reference (self->knowledge);
}

static gboolean
chip_matches (const Chip             *chip,
              const SjReferenceEntry *entry)
{
  if (chip->tag != NULL)
    return entry->tags != NULL && g_strv_contains ((const char * const *)entry->tags, chip->tag);
  if (chip->source != NULL)
    return g_strcmp0 (entry->source, chip->source) == 0;
  return TRUE;
}

/* The first line of a description, as a row's summary. */
static char *
first_line (const char *text)
{
  const char *end;

  if (text == NULL)
    return g_strdup ("");
  end = strchr (text, '\n');
  return end != NULL ? g_strndup (text, end - text) : g_strdup (text);
}

/* Search ------------------------------------------------------------------ */

static void
refresh (SjReferencePage *self)
{
  SjReferenceIndex *reference;
  g_autoptr(GArray) hits = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autofree guint *counts = NULL;
  g_autofree char *text = NULL;
  const Chip *active;
  guint n_candidates;

  g_assert (SJ_IS_REFERENCE_PAGE (self));

  if (self->knowledge == NULL)
    return;

  reference = get_reference (self);
  text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry))));

  /* Uncallable entries are listed too: the page badges them, so that the
   * user learns why a function from the Strudel website does nothing here. */
  if (*text != '\0')
    hits = sj_knowledge_search_reference (self->knowledge, text, TRUE);
  n_candidates = hits != NULL ? hits->len : self->sorted->len;

  active = g_ptr_array_index (self->chips, sj_chip_bar_get_active (self->chip_bar));
  counts = g_new0 (guint, self->chips->len);
  items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n_candidates; i++)
    {
      const SjKnowledgeHit *hit = hits != NULL ? &g_array_index (hits, SjKnowledgeHit, i) : NULL;
      guint position = hit != NULL ? hit->index : g_array_index (self->sorted, guint, i);
      const SjReferenceEntry *entry;

      if (hit != NULL && hit->kind != SJ_KNOWLEDGE_HIT_FUNCTION)
        continue;

      entry = sj_reference_index_get_entry (reference, position);
      for (guint c = 0; c < self->chips->len; c++)
        counts[c] += chip_matches (g_ptr_array_index (self->chips, c), entry);

      if (chip_matches (active, entry))
        g_ptr_array_add (items, sj_knowledge_item_new (position));
    }

  g_list_store_splice (self->results, 0, g_list_model_get_n_items (G_LIST_MODEL (self->results)),
                       items->pdata, items->len);

  for (guint c = 0; c < self->chips->len; c++)
    sj_chip_bar_set_count (self->chip_bar, c, counts[c]);

  gtk_stack_set_visible_child_name (self->results_stack, items->len > 0 ? "results" : "empty");
  if (items->len > 0)
    gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", 0);
}

static void
search_changed_cb (SjReferencePage *self,
                   GtkSearchEntry  *entry)
{
  g_assert (SJ_IS_REFERENCE_PAGE (self));

  refresh (self);
}

static void
chip_changed_cb (SjReferencePage *self,
                 SjChipBar       *chip_bar)
{
  g_assert (SJ_IS_REFERENCE_PAGE (self));

  refresh (self);
}

static void
add_chip (SjReferencePage *self,
          const char      *title,
          const char      *tag,
          const char      *source)
{
  Chip *chip = g_new0 (Chip, 1);

  chip->tag = g_strdup (tag);
  chip->source = g_strdup (source);
  g_ptr_array_add (self->chips, chip);
  sj_chip_bar_append (self->chip_bar, title);
}

static int
compare_by_count (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  GHashTable *counts = user_data;
  const char *ka = *(const char **)a;
  const char *kb = *(const char **)b;
  guint ca = GPOINTER_TO_UINT (g_hash_table_lookup (counts, ka));
  guint cb = GPOINTER_TO_UINT (g_hash_table_lookup (counts, kb));

  if (ca != cb)
    return ca > cb ? -1 : 1;
  return g_ascii_strcasecmp (ka, kb);
}

/* The keys of @counts, biggest count first (borrowed from the table). */
static GPtrArray *
sorted_keys (GHashTable *counts)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort_with_data (keys, compare_by_count, counts);

  return keys;
}

static void
count_key (GHashTable *counts,
           const char *key)
{
  gpointer value = g_hash_table_lookup (counts, key);

  g_hash_table_insert (counts, g_strdup (key), GUINT_TO_POINTER (GPOINTER_TO_UINT (value) + 1));
}

/* The chips: All, then the packages the entries come from and the tags
 * Strudel gives them, each kind biggest first. */
static void
build_chips (SjReferencePage *self)
{
  SjReferenceIndex *reference = get_reference (self);
  guint n = sj_reference_index_get_n_entries (reference);
  g_autoptr(GHashTable) sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) tags = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) keys = NULL;

  for (guint i = 0; i < n; i++)
    {
      const SjReferenceEntry *entry = sj_reference_index_get_entry (reference, i);

      if (entry->source != NULL)
        count_key (sources, entry->source);
      for (guint t = 0; entry->tags != NULL && entry->tags[t] != NULL; t++)
        count_key (tags, entry->tags[t]);
    }

  add_chip (self, _("All"), NULL, NULL);

  keys = sorted_keys (sources);
  for (guint i = 0; i < keys->len; i++)
    add_chip (self, sj_reference_source_title (g_ptr_array_index (keys, i)), NULL, g_ptr_array_index (keys, i));
  g_clear_pointer (&keys, g_ptr_array_unref);

  keys = sorted_keys (tags);
  for (guint i = 0; i < keys->len; i++)
    add_chip (self, g_ptr_array_index (keys, i), g_ptr_array_index (keys, i), NULL);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  SjReferenceIndex *reference = user_data;
  const SjReferenceEntry *ea = sj_reference_index_get_entry (reference, *(const guint *)a);
  const SjReferenceEntry *eb = sj_reference_index_get_entry (reference, *(const guint *)b);
  int cmp = g_ascii_strcasecmp (ea->name, eb->name);

  return cmp != 0 ? cmp : strcmp (ea->name, eb->name);
}

/* Rows -------------------------------------------------------------------- */

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *synonyms = gtk_label_new (NULL);
  GtkWidget *badge = gtk_label_new (_("Not available in this app"));
  GtkWidget *summary = gtk_label_new (NULL);

  /* Every part of a row may shorten, so that the longest name never makes
   * the side panel wider. */
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (name, "sj-function-name");
  gtk_label_set_xalign (GTK_LABEL (synonyms), 0);
  gtk_label_set_ellipsize (GTK_LABEL (synonyms), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (synonyms, TRUE);
  gtk_widget_add_css_class (synonyms, "dim-label");
  gtk_label_set_ellipsize (GTK_LABEL (badge), PANGO_ELLIPSIZE_END);
  gtk_widget_set_tooltip_text (badge, _("Not available in this app"));
  gtk_widget_add_css_class (badge, "sj-badge");
  gtk_widget_add_css_class (badge, "caption");
  gtk_label_set_xalign (GTK_LABEL (summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (summary), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (summary), TRUE);
  gtk_widget_add_css_class (summary, "dim-label");
  gtk_widget_add_css_class (summary, "caption");

  gtk_box_append (GTK_BOX (top), name);
  gtk_box_append (GTK_BOX (top), synonyms);
  gtk_box_append (GTK_BOX (top), badge);
  gtk_box_append (GTK_BOX (box), top);
  gtk_box_append (GTK_BOX (box), summary);
  gtk_list_item_set_child (item, box);
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  SjReferencePage *self = user_data;
  SjKnowledgeItem *row = gtk_list_item_get_item (item);
  const SjReferenceEntry *entry = sj_reference_index_get_entry (get_reference (self),
                                                                sj_knowledge_item_get_index (row));
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *top = gtk_widget_get_first_child (box);
  GtkWidget *name = gtk_widget_get_first_child (top);
  GtkWidget *synonyms = gtk_widget_get_next_sibling (name);
  GtkWidget *badge = gtk_widget_get_next_sibling (synonyms);
  GtkWidget *summary = gtk_widget_get_next_sibling (top);
  g_autofree char *joined = entry->synonyms ? g_strjoinv (", ", entry->synonyms) : NULL;
  g_autofree char *line = first_line (entry->description);

  gtk_label_set_label (GTK_LABEL (name), entry->name);
  gtk_label_set_label (GTK_LABEL (synonyms), joined ? joined : "");
  gtk_widget_set_visible (badge, !entry->callable);
  gtk_label_set_label (GTK_LABEL (summary), line);
}

/* Detail ------------------------------------------------------------------ */

static void
show_entry (SjReferencePage *self,
            guint            position)
{
  const SjReferenceEntry *entry = sj_reference_index_get_entry (get_reference (self), position);

  gtk_label_set_label (self->detail_title, entry->name);
  sj_reference_entry_view_set_entry (self->entry_view, entry);
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->detail_scroller), 0);

  /* GtkStack would move the focus into the new page before that page is
   * laid out, onto whichever selectable label it finds first, selecting all
   * of its text. The back button takes the focus instead. */
  if (gtk_widget_get_root (GTK_WIDGET (self)) != NULL)
    gtk_root_set_focus (gtk_widget_get_root (GTK_WIDGET (self)), NULL);
  gtk_stack_set_visible_child_name (self->stack, "detail");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "reference.back", TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->back_button));
}

static void
list_activate_cb (SjReferencePage *self,
                  guint            position,
                  GtkListView     *list_view)
{
  g_autoptr(SjKnowledgeItem) item = NULL;

  g_assert (SJ_IS_REFERENCE_PAGE (self));

  item = g_list_model_get_item (G_LIST_MODEL (self->results), position);
  if (item == NULL)
    return;

  self->opened_from_list = TRUE;
  show_entry (self, sj_knowledge_item_get_index (item));
}

/* Enter in the search entry opens the best match. */
static void
search_activate_cb (SjReferencePage *self,
                    GtkSearchEntry  *entry)
{
  g_autoptr(SjKnowledgeItem) item = NULL;

  g_assert (SJ_IS_REFERENCE_PAGE (self));

  item = g_list_model_get_item (G_LIST_MODEL (self->results), 0);
  if (item == NULL)
    return;

  self->opened_from_list = FALSE;
  show_entry (self, sj_knowledge_item_get_index (item));
}

/* Down in the search entry moves on to the results. */
static gboolean
search_key_pressed_cb (SjReferencePage       *self,
                       guint                  keyval,
                       guint                  keycode,
                       GdkModifierType        state,
                       GtkEventControllerKey *controller)
{
  g_assert (SJ_IS_REFERENCE_PAGE (self));

  if (keyval != GDK_KEY_Down && keyval != GDK_KEY_KP_Down)
    return FALSE;

  return gtk_widget_child_focus (GTK_WIDGET (self->list_view), GTK_DIR_TAB_FORWARD);
}

/* Actions ----------------------------------------------------------------- */

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  SjReferencePage *self = SJ_REFERENCE_PAGE (widget);

  gtk_stack_set_visible_child_name (self->stack, "list");
  gtk_widget_action_set_enabled (widget, "reference.back", FALSE);

  /* Back where the entry was opened from: its row, or the search. */
  if (!self->opened_from_list || !gtk_widget_grab_focus (GTK_WIDGET (self->list_view)))
    gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
insert_example_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  g_signal_emit (widget, signals[INSERT_REQUESTED], 0, g_variant_get_string (param, NULL));
}

static void
copy_example_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), g_variant_get_string (param, NULL));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_reference_page_dispose (GObject *object)
{
  SjReferencePage *self = (SjReferencePage *)object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_REFERENCE_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->results);
  g_clear_object (&self->knowledge);
  g_clear_pointer (&self->sorted, g_array_unref);
  g_clear_pointer (&self->chips, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_reference_page_parent_class)->dispose (object);
}

static void
sj_reference_page_class_init (SjReferencePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_reference_page_dispose;

  g_type_ensure (SJ_TYPE_CHIP_BAR);
  g_type_ensure (SJ_TYPE_REFERENCE_ENTRY_VIEW);

  /**
   * SjReferencePage::insert-requested:
   * @text: the example to insert
   *
   * The user asked for @text to go into the editor at the cursor.
   */
  signals[INSERT_REQUESTED] =
    g_signal_new ("insert-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-reference-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, stack);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, chip_bar);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, results_stack);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, list_view);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, factory);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, back_button);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, detail_title);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, detail_scroller);
  gtk_widget_class_bind_template_child (widget_class, SjReferencePage, entry_view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, chip_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, list_activate_cb);

  gtk_widget_class_install_action (widget_class, "reference.back", NULL, back_action);
  gtk_widget_class_install_action (widget_class, "reference.insert-example", "s", insert_example_action);
  gtk_widget_class_install_action (widget_class, "reference.copy-example", "s", copy_example_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "reference.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "reference.back", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjreferencepage");
}

static void
sj_reference_page_init (SjReferencePage *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->results = g_list_store_new (SJ_TYPE_KNOWLEDGE_ITEM);
  self->chips = g_ptr_array_new_with_free_func (chip_free);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->results)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));

  g_signal_connect (self->factory, "setup", G_CALLBACK (setup_row_cb), self);
  g_signal_connect (self->factory, "bind", G_CALLBACK (bind_row_cb), self);

  keys = gtk_event_controller_key_new ();
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (search_key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), keys);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "reference.back", FALSE);
}

/**
 * sj_reference_page_set_knowledge:
 *
 * Gives the page what it shows. The window does this when the page is
 * first shown rather than at start-up, because reading the reference takes
 * a moment.
 */
void
sj_reference_page_set_knowledge (SjReferencePage *self,
                                 SjKnowledge     *knowledge)
{
  SjReferenceIndex *reference;
  guint n;

  g_assert (SJ_IS_REFERENCE_PAGE (self));
  g_return_if_fail (SJ_IS_KNOWLEDGE (knowledge));
  g_return_if_fail (self->knowledge == NULL);

  self->knowledge = g_object_ref (knowledge);

  reference = get_reference (self);
  n = sj_reference_index_get_n_entries (reference);
  self->sorted = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  for (guint i = 0; i < n; i++)
    g_array_append_val (self->sorted, i);
  g_array_sort_with_data (self->sorted, compare_entries, reference);

  build_chips (self);
  refresh (self);
}

/* Returns: (transfer none) (nullable): the knowledge shown, once set. */
SjKnowledge *
sj_reference_page_get_knowledge (SjReferencePage *self)
{
  g_assert (SJ_IS_REFERENCE_PAGE (self));

  return self->knowledge;
}

/* Shows the list and puts the keyboard in the search entry. */
void
sj_reference_page_focus_search (SjReferencePage *self)
{
  g_assert (SJ_IS_REFERENCE_PAGE (self));

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "list") != 0)
    back_action (GTK_WIDGET (self), "reference.back", NULL);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/* Returns: (transfer none): the listed entries, as #SjKnowledgeItem. */
GListModel *
_sj_reference_page_get_results (SjReferencePage *self)
{
  g_assert (SJ_IS_REFERENCE_PAGE (self));

  return G_LIST_MODEL (self->results);
}
