/* sj-skills-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the Skills page's files share: sj-skills-page.c (the list, the
 * search, the detail view), sj-skills-page-actions.c (creating, removing,
 * opening in other apps) and sj-skills-page-transfer.c (importing and
 * exporting); and what the
 * tests reach: the list, the Markdown view, the messages shown, and a hook
 * that stands in for launching another app.
 */

#pragma once

#include <adwaita.h>

#include "sj-markdown-view.h"
#include "sj-skills-page.h"

G_BEGIN_DECLS

/* Stands in for opening @file in another app (tests). */
typedef void (*SjSkillsLaunchHook) (GFile    *file,
                                    gpointer  user_data);

struct _SjSkillsPage
{
  GtkWidget             parent_instance;

  SjSkillRegistry      *registry;
  GPtrArray            *listed;        /* the registry's skills at the last rebuild */
  SjSkill              *shown;         /* in the detail view, or NULL */
  char                 *shown_name;
  GCancellable         *cancellable;
  GtkFileChooserNative *chooser;       /* the open file chooser, one at a time */
  char                 *last_toast;
  SjSkillsLaunchHook    launch_hook;
  gpointer              launch_hook_data;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  GtkRevealer          *error_revealer;
  GtkLabel             *error_label;
  GtkStack             *stack;
  GtkSearchEntry       *search_entry;
  GtkButton            *new_button;
  GtkMenuButton        *menu_button;
  GtkStack             *results_stack;
  AdwStatusPage        *none_status;
  GtkListBox           *skills_list;
  GtkWidget            *errors_box;
  GtkListBox           *errors_list;
  GtkButton            *back_button;
  GtkLabel             *detail_title;
  GtkLabel             *detail_meta;
  SjMarkdownView       *markdown_view;
  GtkButton            *open_button;
  GtkButton            *edit_button;
  GtkButton            *export_button;
  GtkButton            *remove_button;
};

/* sj-skills-page.c */
void            _sj_skills_page_rebuild         (SjSkillsPage       *self);
void            _sj_skills_page_show_list       (SjSkillsPage       *self);
void            _sj_skills_page_show_toast      (SjSkillsPage       *self,
                                                 const char         *text);
void            _sj_skills_page_show_error      (SjSkillsPage       *self,
                                                 const char         *text);
GtkListBox     *_sj_skills_page_get_list        (SjSkillsPage       *self);
SjMarkdownView *_sj_skills_page_get_markdown_view (SjSkillsPage     *self);
SjSkill        *_sj_skills_page_get_shown       (SjSkillsPage       *self);
const char     *_sj_skills_page_get_error       (SjSkillsPage       *self);
const char     *_sj_skills_page_get_last_toast  (SjSkillsPage       *self);

/* sj-skills-page-actions.c */
GtkWindow      *_sj_skills_page_get_window      (SjSkillsPage       *self);
void            _sj_skills_page_class_init_actions (GtkWidgetClass  *widget_class);
void            _sj_skills_page_update_actions  (SjSkillsPage       *self);
SjSkill        *_sj_skills_page_create          (SjSkillsPage       *self,
                                                 const char         *name,
                                                 const char         *title,
                                                 GError            **error);
void            _sj_skills_page_export          (SjSkillsPage       *self,
                                                 GFile              *target);
void            _sj_skills_page_set_launch_hook (SjSkillsPage       *self,
                                                 SjSkillsLaunchHook  hook,
                                                 gpointer            user_data);
char           *_sj_skills_page_name_from_title (const char         *title);

/* sj-skills-page-transfer.c */
void            _sj_skills_page_class_init_transfer (GtkWidgetClass *widget_class);
void            _sj_skills_page_init_transfer   (SjSkillsPage       *self);
void            _sj_skills_page_close_chooser   (SjSkillsPage       *self);

G_END_DECLS
