/* sj-sounds-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sounds page of the side panel: every sound the Strudel page has
 * registered, in the categories of the Strudel website's sounds tab, found
 * with the same forgiving matching as the agent's strudel_knowledge tool
 * ("offline" finds what plays with no network). Under "User", the user's
 * own folders of samples are added and listed (SjUserSamplesView). Each row says how its
 * sound would play now (built in, downloaded, downloaded when first
 * played, the built-in drum kit's voice, not available offline) as the
 * knowledge's sound cache tells, and follows it live; its preview button
 * plays the sound once.
 *
 * The list follows the app's SjSoundsIndex, which the page's snapshots keep
 * fresh and the cache fills before the page runs. This file searches and
 * lists; the rows' states and the previews are in sj-sounds-page-previews.c.
 * Playing is the window's business: the page emits
 * SjSoundsPage::preview-requested, the window asks the REPL and hands the
 * outcome back (sj_sounds_page_finish_preview()).
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-knowledge-item.h"
#include "sj-sounds-page-private.h"

/* The chips, in the order of Strudel's sounds tab. */
static const struct {
  SjSoundCategory  category;
  const char      *title;
} chip_specs[] = {
  { SJ_SOUND_CATEGORY_ALL, N_("All") },
  { SJ_SOUND_CATEGORY_DRUMS, N_("Drum machines") },
  { SJ_SOUND_CATEGORY_SAMPLES, N_("Samples") },
  { SJ_SOUND_CATEGORY_SYNTHS, N_("Synths") },
  { SJ_SOUND_CATEGORY_WAVETABLES, N_("Wavetables") },
  { SJ_SOUND_CATEGORY_USER, N_("User") },
};

G_DEFINE_FINAL_TYPE (SjSoundsPage, sj_sounds_page, GTK_TYPE_WIDGET)

enum {
  PREVIEW_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static SjSoundsIndex *
get_sounds (SjSoundsPage *self)
{
  return sj_knowledge_get_sounds (self->knowledge);
}

/* The previews (sj-sounds-page-previews.c) ask through here. */
void
_sj_sounds_page_emit_preview_requested (SjSoundsPage *self,
                                        const char   *name)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  g_signal_emit (self, signals[PREVIEW_REQUESTED], 0, name);
}

/* "synth", "soundfont · 3 variants", "sample · 12 files"… */
static char *
describe_sound (const SjSound *sound)
{
  const char *kind;
  g_autofree char *count = NULL;

  if (g_str_equal (sound->type, "synth"))
    kind = _("synth");
  else if (g_str_equal (sound->type, "soundfont"))
    {
      kind = _("soundfont");
      if (sound->count > 0)
        count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d variant", "%d variants", sound->count),
                                 sound->count);
    }
  else if (g_str_equal (sound->type, "sample"))
    {
      kind = _("sample");
      if (sound->count > 0)
        count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d file", "%d files", sound->count),
                                 sound->count);
    }
  else if (g_str_equal (sound->type, "wavetable"))
    {
      kind = _("wavetable");
      if (sound->count > 0)
        count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d table", "%d tables", sound->count),
                                 sound->count);
    }
  else
    kind = sound->type;

  if (count == NULL)
    return g_strdup (kind);
  /* TRANSLATORS: a sound's kind and how many variants it has, e.g. "sample · 12 files" */
  return g_strdup_printf (_("%s · %s"), kind, count);
}

/* Search ------------------------------------------------------------------ */

static void
update_chips (SjSoundsPage *self)
{
  SjSoundsIndex *sounds = get_sounds (self);

  for (guint c = 0; c < G_N_ELEMENTS (chip_specs); c++)
    sj_chip_bar_set_count (self->chip_bar, c, sj_sounds_index_count (sounds, chip_specs[c].category));
}

static guint
position_of (SjSoundsPage  *self,
             const SjSound *sound)
{
  SjSoundsIndex *sounds = get_sounds (self);

  if (self->positions == NULL)
    {
      guint n = sj_sounds_index_get_n_sounds (sounds);

      self->positions = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < n; i++)
        g_hash_table_insert (self->positions, (gpointer)sj_sounds_index_get_sound (sounds, i), GUINT_TO_POINTER (i + 1));
    }

  /* G_MAXUINT for a sound that is not in the index. */
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->positions, sound)) - 1;
}

static void
add_sound (GPtrArray *items,
           gboolean  *seen,
           guint      position)
{
  if (position == G_MAXUINT || seen[position])
    return;
  seen[position] = TRUE;
  g_ptr_array_add (items, sj_knowledge_item_new (position));
}

static void
refresh (SjSoundsPage *self)
{
  SjSoundsIndex *sounds;
  g_autoptr(GPtrArray) items = NULL;
  g_autofree gboolean *seen = NULL;
  g_autofree char *text = NULL;
  guint n;

  g_assert (SJ_IS_SOUNDS_PAGE (self));

  if (self->knowledge == NULL)
    return;

  sounds = get_sounds (self);
  n = sj_sounds_index_get_n_sounds (sounds);
  items = g_ptr_array_new_with_free_func (g_object_unref);
  seen = g_new0 (gboolean, n + 1);
  text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry))));

  if (*text == '\0')
    {
      /* The sounds a newcomer reaches for first, then the rest in the
       * index's (alphabetical) order, where "9000_bd" would come first. */
      static const char * const common[] = {
        "bd", "sd", "hh", "oh", "cp", "rim", "lt", "mt", "ht", "cr", "rd", "cb",
        "piano", "sawtooth", "square", "triangle", "sine", "supersaw", "gm_acoustic_bass",
        "gm_electric_guitar_clean", "gm_epiano1", "gm_string_ensemble_1", "gm_pad_warm",
        "casio", "jazz", "metal", "east", "arpy", "bass", "pluck", NULL
      };

      for (guint c = 0; common[c] != NULL; c++)
        {
          const SjSound *sound = sj_sounds_index_lookup (sounds, common[c]);

          if (sound != NULL && sj_sound_in_category (sound, self->category))
            add_sound (items, seen, position_of (self, sound));
        }
      for (guint i = 0; i < n; i++)
        if (sj_sound_in_category (sj_sounds_index_get_sound (sounds, i), self->category))
          add_sound (items, seen, i);
    }
  else
    {
      g_autoptr(GArray) hits = sj_knowledge_search_sounds (self->knowledge, text, self->category);

      for (guint i = 0; i < hits->len; i++)
        {
          const SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i);
          const SjSoundBank *bank;

          if (hit->kind == SJ_KNOWLEDGE_HIT_SOUND)
            {
              add_sound (items, seen, hit->index);
              continue;
            }

          /* A bank ("RolandTR808") stands for its sounds, listed where the
           * bank ranks. */
          bank = sj_sounds_index_get_bank (sounds, hit->index);
          for (guint s = 0; s < bank->sounds->len; s++)
            {
              const SjSound *sound = g_ptr_array_index (bank->sounds, s);

              if (sj_sound_in_category (sound, self->category))
                add_sound (items, seen, position_of (self, sound));
            }
        }
    }

  g_list_store_splice (self->results, 0, g_list_model_get_n_items (G_LIST_MODEL (self->results)),
                       items->pdata, items->len);

  update_chips (self);
  gtk_stack_set_visible_child_name (self->stack, n > 0 ? "sounds" : "empty");
  gtk_stack_set_visible_child_name (self->results_stack, items->len > 0 ? "results" : "none");
  if (items->len > 0)
    gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", 0);
}

static void
sounds_changed_cb (SjSoundsPage  *self,
                   SjSoundsIndex *sounds)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  /* The rows point into the index by position: rebuild them all. */
  g_clear_pointer (&self->positions, g_hash_table_unref);
  refresh (self);
}

static void
search_changed_cb (SjSoundsPage   *self,
                   GtkSearchEntry *entry)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  refresh (self);
}

static void
chip_changed_cb (SjSoundsPage *self,
                 SjChipBar    *chip_bar)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  self->category = chip_specs[sj_chip_bar_get_active (chip_bar)].category;
  /* "User" is where the user's own folders are added and listed. */
  gtk_widget_set_visible (GTK_WIDGET (self->user_samples_view), self->category == SJ_SOUND_CATEGORY_USER);
  refresh (self);
}

/* Rows -------------------------------------------------------------------- */

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  gtk_list_item_set_child (item, g_object_new (SJ_TYPE_SOUND_ROW, NULL));
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  SjSoundsPage *self = user_data;
  SjKnowledgeItem *row_item = gtk_list_item_get_item (item);
  const SjSound *sound = sj_sounds_index_get_sound (get_sounds (self), sj_knowledge_item_get_index (row_item));
  SjSoundRow *row = SJ_SOUND_ROW (gtk_list_item_get_child (item));
  g_autofree char *description = describe_sound (sound);
  g_autofree char *usage = sj_sound_usage (sound);

  sj_sound_row_set_sound (row, sound->name, description, usage);
  _sj_sounds_page_update_row (self, row);
  g_hash_table_add (self->rows, row);
}

static void
unbind_row_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  user_data)
{
  SjSoundsPage *self = user_data;

  g_hash_table_remove (self->rows, gtk_list_item_get_child (item));
}

/* Previews ---------------------------------------------------------------- */

static void
preview_position (SjSoundsPage *self,
                  guint         position)
{
  g_autoptr(SjKnowledgeItem) item = g_list_model_get_item (G_LIST_MODEL (self->results), position);
  const SjSound *sound;

  if (item == NULL)
    return;

  sound = sj_sounds_index_get_sound (get_sounds (self), sj_knowledge_item_get_index (item));
  _sj_sounds_page_start_preview (self, sound->name);
}

/* Activating a row (click, Enter) plays it, as in Strudel's sounds tab. */
static void
list_activate_cb (SjSoundsPage *self,
                  guint         position,
                  GtkListView  *list_view)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  preview_position (self, position);
}

/* Enter in the search entry plays the best match. */
static void
search_activate_cb (SjSoundsPage   *self,
                    GtkSearchEntry *entry)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  preview_position (self, 0);
}

/* Down in the search entry moves on to the results. */
static gboolean
search_key_pressed_cb (SjSoundsPage          *self,
                       guint                  keyval,
                       guint                  keycode,
                       GdkModifierType        state,
                       GtkEventControllerKey *controller)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  if (keyval != GDK_KEY_Down && keyval != GDK_KEY_KP_Down)
    return FALSE;

  return gtk_widget_child_focus (GTK_WIDGET (self->list_view), GTK_DIR_TAB_FORWARD);
}

static void
preview_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  _sj_sounds_page_start_preview (SJ_SOUNDS_PAGE (widget), g_variant_get_string (param, NULL));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_sounds_page_dispose (GObject *object)
{
  SjSoundsPage *self = (SjSoundsPage *)object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_SOUNDS_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->results);
  _sj_sounds_page_previews_dispose (self);
  g_clear_object (&self->knowledge);
  g_clear_pointer (&self->positions, g_hash_table_unref);

  G_OBJECT_CLASS (sj_sounds_page_parent_class)->dispose (object);
}

static void
sj_sounds_page_class_init (SjSoundsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_sounds_page_dispose;

  g_type_ensure (SJ_TYPE_CHIP_BAR);
  g_type_ensure (SJ_TYPE_SOUND_ROW);
  g_type_ensure (SJ_TYPE_USER_SAMPLES_VIEW);

  /**
   * SjSoundsPage::preview-requested:
   * @name: the sound to play once
   */
  signals[PREVIEW_REQUESTED] =
    g_signal_new ("preview-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-sounds-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, chip_bar);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, user_samples_view);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, results_stack);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, list_view);
  gtk_widget_class_bind_template_child (widget_class, SjSoundsPage, factory);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, chip_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, list_activate_cb);

  gtk_widget_class_install_action (widget_class, "sounds.preview", "s", preview_action);

  _sj_sounds_page_packs_class_init (widget_class);

  gtk_widget_class_set_css_name (widget_class, "sjsoundspage");
}

static void
sj_sounds_page_init (SjSoundsPage *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  _sj_sounds_page_packs_init (self);

  self->category = SJ_SOUND_CATEGORY_ALL;
  _sj_sounds_page_previews_init (self);
  self->results = g_list_store_new (SJ_TYPE_KNOWLEDGE_ITEM);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->results)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));

  g_signal_connect (self->factory, "setup", G_CALLBACK (setup_row_cb), self);
  g_signal_connect (self->factory, "bind", G_CALLBACK (bind_row_cb), self);
  g_signal_connect (self->factory, "unbind", G_CALLBACK (unbind_row_cb), self);

  keys = gtk_event_controller_key_new ();
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (search_key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), keys);

  for (guint c = 0; c < G_N_ELEMENTS (chip_specs); c++)
    {
      guint position = sj_chip_bar_append (self->chip_bar, _(chip_specs[c].title));

      /* "User" is where folders of samples are added, so it is never off. */
      if (chip_specs[c].category == SJ_SOUND_CATEGORY_USER)
        sj_chip_bar_set_always_sensitive (self->chip_bar, position);
    }
}

/**
 * sj_sounds_page_set_knowledge:
 *
 * Gives the page the lookups it searches with; the list then follows the
 * sounds index of @knowledge, and the rows its sound cache.
 */
void
sj_sounds_page_set_knowledge (SjSoundsPage *self,
                              SjKnowledge  *knowledge)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));
  g_return_if_fail (SJ_IS_KNOWLEDGE (knowledge));
  g_return_if_fail (self->knowledge == NULL);

  self->knowledge = g_object_ref (knowledge);
  g_signal_connect_object (get_sounds (self), "changed", G_CALLBACK (sounds_changed_cb), self, G_CONNECT_SWAPPED);
  _sj_sounds_page_watch_knowledge (self);
  refresh (self);
}

/* Returns: (transfer none) (nullable): the knowledge searched, once set. */
SjKnowledge *
_sj_sounds_page_get_knowledge (SjSoundsPage *self)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  return self->knowledge;
}

/**
 * sj_sounds_page_set_user_samples:
 *
 * The user's own folders of samples, added and listed under "User".
 */
void
sj_sounds_page_set_user_samples (SjSoundsPage  *self,
                                 SjUserSamples *samples)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  sj_user_samples_view_set_samples (self->user_samples_view, samples);
}

void
sj_sounds_page_focus_search (SjSoundsPage *self)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  if (!_sj_sounds_page_focus_packs (self))
    gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/* Returns: (transfer none): the listed sounds, as #SjKnowledgeItem. */
GListModel *
_sj_sounds_page_get_results (SjSoundsPage *self)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  return G_LIST_MODEL (self->results);
}
