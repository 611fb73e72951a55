/* sj-session-item.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SJ_TYPE_SESSION_ITEM (sj_session_item_get_type ())

G_DECLARE_FINAL_TYPE (SjSessionItem, sj_session_item, SJ, SESSION_ITEM, GObject)

SjSessionItem *sj_session_item_new         (gint64         id,
                                            const char    *title,
                                            gint64         updated);
gint64         sj_session_item_get_id      (SjSessionItem *self);
const char    *sj_session_item_get_title   (SjSessionItem *self);
void           sj_session_item_set_title   (SjSessionItem *self,
                                            const char    *title);
gint64         sj_session_item_get_updated (SjSessionItem *self);
void           sj_session_item_set_updated (SjSessionItem *self,
                                            gint64         updated);
gboolean       sj_session_item_get_current (SjSessionItem *self);
void           sj_session_item_set_current (SjSessionItem *self,
                                            gboolean       current);
const char    *sj_session_item_get_usage   (SjSessionItem *self);
void           sj_session_item_set_usage   (SjSessionItem *self,
                                            const char    *usage);

G_END_DECLS
