/* sj-test-widgets.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void        sj_test_widgets_spin_until (gboolean    (*done) (gpointer),
                                        gpointer      data,
                                        guint         timeout_s,
                                        const char   *what);
GtkWidget  *sj_test_find_by_class      (GtkWidget    *root,
                                        const char   *css_class);
GtkWidget  *sj_test_find_by_type       (GtkWidget    *root,
                                        GType         type);
GPtrArray  *sj_test_find_all_by_type   (GtkWidget    *root,
                                        GType         type);
GdkTexture *sj_test_render_widget      (GtkWidget    *widget);
void        sj_test_catch_win_action   (GtkWidget    *ancestor,
                                        const char   *name,
                                        GPtrArray    *received);
char       *sj_test_save_png           (GdkTexture   *texture,
                                        const char   *name);
guint       sj_test_count_colours      (GdkTexture   *texture,
                                        double       *luma);
void        sj_test_wait_widget_frames (GtkWidget    *widget,
                                        int           n,
                                        guint         timeout_s);
void        sj_test_tolerate_gtk_snapshot_race (void);

/* A window that takes real key presses from xdotool under Xvfb, and counts
 * the frames it draws. */
typedef struct
{
  GtkWindow *window;
  guint      barriers;   /* F12 presses seen */
  guint64    frames;     /* frames drawn */
  guint      timeout_s;
} SjTestKeyWindow;

void        sj_test_run_xdotool        (const char * const *args);
void        sj_test_key_window_open    (SjTestKeyWindow    *self,
                                        GtkWidget          *child,
                                        int                 width,
                                        int                 height,
                                        guint               timeout_s);
void        sj_test_key_window_attach  (SjTestKeyWindow    *self,
                                        GtkWindow          *window,
                                        guint               timeout_s);
void        sj_test_key_window_close   (SjTestKeyWindow    *self);
void        sj_test_key_window_press   (SjTestKeyWindow    *self,
                                        const char * const *keys);
void        sj_test_key_window_wait_frames (SjTestKeyWindow *self,
                                        guint               n);

void        sj_test_collect_unnamed    (GtkWidget          *widget,
                                        const char         *where,
                                        GString            *unnamed,
                                        guint              *checked);

G_END_DECLS
