/* sj-sounds-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sounds page's insides, shared by sj-sounds-page.c (the search, the
 * list), sj-sounds-page-previews.c (the rows' states and the previews) and
 * sj-sounds-page-packs.c (the Packs view), and what the tests look at: the
 * knowledge it searches and its results.
 */

#pragma once

#include "sj-chip-bar.h"
#include "sj-sound-packs-view.h"
#include "sj-sound-row.h"
#include "sj-sounds-page.h"
#include "sj-user-samples-view.h"

G_BEGIN_DECLS

/* A preview in progress. */
typedef struct
{
  guint    pending;     /* calls not yet finished */
  gint64   started;     /* monotonic µs */
  gboolean loading;     /* its file may have to be downloaded: the spinner turns */
  gboolean downloaded;  /* a file of the sound was downloaded meanwhile */
  gboolean replayed;
} SjSoundsPagePreview;

struct _SjSoundsPage
{
  GtkWidget                 parent_instance;

  SjKnowledge              *knowledge;
  SjSoundCache             *cache;      /* the knowledge's, watched for downloads and failures */
  GListStore               *results;
  GHashTable               *positions;  /* SjSound → position + 1, built on demand */
  SjSoundCategory           category;
  GHashTable               *rows;       /* the bound SjSoundRows */
  GHashTable               *previews;   /* sound name → SjSoundsPagePreview */
  GHashTable               *failures;   /* sound name → why its last preview failed */
  GHashTable               *load_failures; /* SjLibrarySound → the cache's last sentence */

  /* Template widgets */
  GtkStack                 *stack;
  GtkSearchEntry           *search_entry;
  SjChipBar                *chip_bar;
  SjUserSamplesView        *user_samples_view;
  GtkStack                 *results_stack;
  GtkListView              *list_view;
  GtkSignalListItemFactory *factory;
  GtkToggleButton          *sounds_toggle;
  GtkToggleButton          *packs_toggle;
  SjSoundPacksView         *packs_view;
};

/* sj-sounds-page.c */
void         _sj_sounds_page_emit_preview_requested (SjSoundsPage *self,
                                                     const char   *name);

/* sj-sounds-page-previews.c */
void         _sj_sounds_page_previews_init          (SjSoundsPage *self);
void         _sj_sounds_page_previews_dispose       (SjSoundsPage *self);
void         _sj_sounds_page_watch_knowledge        (SjSoundsPage *self);
void         _sj_sounds_page_update_row             (SjSoundsPage *self,
                                                     SjSoundRow   *row);
void         _sj_sounds_page_start_preview          (SjSoundsPage *self,
                                                     const char   *name);

/* sj-sounds-page-packs.c */
void         _sj_sounds_page_packs_class_init       (GtkWidgetClass *widget_class);
void         _sj_sounds_page_packs_init             (SjSoundsPage *self);
gboolean     _sj_sounds_page_focus_packs            (SjSoundsPage *self);

/* For tests. */
SjKnowledge *_sj_sounds_page_get_knowledge          (SjSoundsPage *self);
GListModel  *_sj_sounds_page_get_results            (SjSoundsPage *self);

G_END_DECLS
