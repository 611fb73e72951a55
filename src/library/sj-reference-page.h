/* sj-reference-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-knowledge.h"

G_BEGIN_DECLS

#define SJ_TYPE_REFERENCE_PAGE (sj_reference_page_get_type ())

G_DECLARE_FINAL_TYPE (SjReferencePage, sj_reference_page, SJ, REFERENCE_PAGE, GtkWidget)

void        sj_reference_page_set_knowledge (SjReferencePage *self,
                                             SjKnowledge     *knowledge);
SjKnowledge *sj_reference_page_get_knowledge (SjReferencePage *self);
void        sj_reference_page_focus_search  (SjReferencePage *self);

G_END_DECLS
