/* sj-test-widgets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the widget tests under Xvfb share: waiting on the main loop for a
 * condition (never sleeping), finding a widget, and rendering one the way
 * GTK draws it on screen.
 */

#include "config.h"

#include "sj-test-widgets.h"

static gboolean
timed_out_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until @done holds; fails after @timeout_s. */
void
sj_test_widgets_spin_until (gboolean    (*done) (gpointer),
                            gpointer      data,
                            guint         timeout_s,
                            const char   *what)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (timeout_s, timed_out_cb, &timed_out);

  while (!done (data))
    {
      if (timed_out)
        g_error ("Timed out waiting for %s", what);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (id);
}

/* Returns: (transfer none) (nullable): the first descendant of @root, depth
 *   first, with @css_class */
GtkWidget *
sj_test_find_by_class (GtkWidget  *root,
                       const char *css_class)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (gtk_widget_has_css_class (child, css_class))
        return child;
      if ((found = sj_test_find_by_class (child, css_class)) != NULL)
        return found;
    }

  return NULL;
}

/* Returns: (transfer full): @widget as its native's renderer draws it */
GdkTexture *
sj_test_render_widget (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);

  return gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (widget)), node,
                                      &GRAPHENE_RECT_INIT (0, 0, width, height));
}
