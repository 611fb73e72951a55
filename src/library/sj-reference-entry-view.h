/* sj-reference-entry-view.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-reference-index.h"

G_BEGIN_DECLS

#define SJ_TYPE_REFERENCE_ENTRY_VIEW (sj_reference_entry_view_get_type ())

G_DECLARE_FINAL_TYPE (SjReferenceEntryView, sj_reference_entry_view, SJ, REFERENCE_ENTRY_VIEW, GtkWidget)

void        sj_reference_entry_view_set_entry    (SjReferenceEntryView   *self,
                                                  const SjReferenceEntry *entry);
const char *sj_reference_source_title            (const char             *source);

G_END_DECLS
