/* sj-test-widgets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the widget tests under Xvfb share: waiting on the main loop for a
 * condition (never sleeping), finding a widget, rendering one the way GTK
 * draws it on screen and keeping it as a PNG, a window that takes real
 * key presses, and the controls a screen reader could not name.
 */

#include "config.h"

#include <gdk/x11/gdkx.h>

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

/* Returns: (transfer none) (nullable): the first descendant of @root, depth
 *   first, of @type */
GtkWidget *
sj_test_find_by_type (GtkWidget *root,
                      GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;
      if ((found = sj_test_find_by_type (child, type)) != NULL)
        return found;
    }

  return NULL;
}

static void
collect (GtkWidget *root,
         GType      type,
         GPtrArray *found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        g_ptr_array_add (found, child);
      collect (child, type, found);
    }
}

/* Returns: (transfer container): every descendant of @root of @type, depth
 *   first */
GPtrArray *
sj_test_find_all_by_type (GtkWidget *root,
                          GType      type)
{
  GPtrArray *found = g_ptr_array_new ();

  collect (root, type, found);
  return found;
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

  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                      &GRAPHENE_RECT_INIT (0, 0, width, height));
}

/* Writes @texture to @name in SJ_TEST_OUTPUT_DIR, or in the temporary
 * directory when that is not set, for a look at what the test saw.
 *
 * Returns: (transfer full): the file's path */
char *
sj_test_save_png (GdkTexture *texture,
                  const char *name)
{
  const char *dir = g_getenv ("SJ_TEST_OUTPUT_DIR");
  char *path = g_build_filename (dir != NULL ? dir : g_get_tmp_dir (), name, NULL);

  g_assert_true (gdk_texture_save_to_png (texture, path));
  return path;
}

/* Returns: how many colours @texture has (a blank or unstyled rendering
 *   has few), with its mean luma, 0 to 255, in @luma */
guint
sj_test_count_colours (GdkTexture *texture,
                       double     *luma)
{
  g_autoptr(GHashTable) colours = g_hash_table_new (NULL, NULL);
  g_autofree guchar *pixels = NULL;
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize stride = (gsize)width * 4;
  gsize n_pixels = (gsize)width * height;
  double sum = 0;

  pixels = g_malloc (stride * height);
  gdk_texture_download (texture, pixels, stride);
  for (gsize i = 0; i < n_pixels; i++)
    {
      const guchar *p = pixels + i * 4;

      g_hash_table_add (colours, GUINT_TO_POINTER ((p[0] << 16) | (p[1] << 8) | p[2]));
      sum += (p[0] * 3 + p[1] * 6 + p[2]) / 10.0;
    }
  *luma = sum / n_pixels;

  return g_hash_table_size (colours);
}

static gboolean
count_down_frame_cb (GtkWidget     *widget,
                     GdkFrameClock *clock,
                     gpointer       data)
{
  --*(int *) data;
  return G_SOURCE_CONTINUE;
}

static gboolean
no_frames_left (gpointer data)
{
  return *(int *) data <= 0;
}

/* Waits until @widget has been drawn @n more times. */
void
sj_test_wait_widget_frames (GtkWidget *widget,
                            int        n,
                            guint      timeout_s)
{
  guint tick = gtk_widget_add_tick_callback (widget, count_down_frame_cb, &n, NULL);

  sj_test_widgets_spin_until (no_frames_left, &n, timeout_s, "frames to be drawn");
  gtk_widget_remove_tick_callback (widget, tick);
}

void
sj_test_run_xdotool (const char * const *args)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_strv_builder_add (builder, "xdotool");
  g_strv_builder_addv (builder, (const char **)args);
  argv = g_strv_builder_end (builder);

  g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool %s failed: %s", args[0], err);
}

/* F12 is the barrier: X delivers keys in order, so once the window has
 * seen the F12 typed after some keys, it has handled those keys too. */
static gboolean
barrier_key_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                SjTestKeyWindow       *self)
{
  if (keyval != GDK_KEY_F12)
    return FALSE;

  self->barriers++;
  return TRUE;
}

/* Keeps the frame clock running, so that waiting for frames waits for
 * layouts and renders done on the next frame. */
static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       data)
{
  SjTestKeyWindow *self = data;

  self->frames++;
  return G_SOURCE_CONTINUE;
}

static gboolean
window_is_active (gpointer data)
{
  SjTestKeyWindow *self = data;

  return gtk_window_is_active (self->window);
}

/* Makes @window, already shown, take real key presses: it gets the X input
 * focus and counts F12 presses and frames; waits fail after @timeout_s. */
void
sj_test_key_window_attach (SjTestKeyWindow *self,
                           GtkWindow       *window,
                           guint            timeout_s)
{
  GtkEventController *keys = gtk_event_controller_key_new ();
  g_autofree char *xid = NULL;

  self->barriers = 0;
  self->frames = 0;
  self->timeout_s = timeout_s;
  self->window = window;

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (barrier_key_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->window), keys);
  gtk_widget_add_tick_callback (GTK_WIDGET (self->window), tick_cb, self, NULL);

  /* There is no window manager under Xvfb: give the window the X input
   * focus ourselves. */
  xid = g_strdup_printf ("%lu", (gulong)gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (self->window))));
  sj_test_run_xdotool ((const char *[]) { "windowfocus", "--sync", xid, NULL });
  sj_test_widgets_spin_until (window_is_active, self, timeout_s, "the window to become active");
}

/* Shows @child in a new window of @width × @height that has the X input
 * focus; waits fail after @timeout_s. */
void
sj_test_key_window_open (SjTestKeyWindow *self,
                         GtkWidget       *child,
                         int              width,
                         int              height,
                         guint            timeout_s)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, width, height);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  sj_test_key_window_attach (self, window, timeout_s);
}

void
sj_test_key_window_close (SjTestKeyWindow *self)
{
  gtk_window_destroy (self->window);
  self->window = NULL;
}

typedef struct
{
  SjTestKeyWindow *self;
  guint            count;
} Barrier;

static gboolean
barrier_passed (gpointer data)
{
  Barrier *barrier = data;

  return barrier->self->barriers > barrier->count;
}

/* Types @keys (xdotool key names) into the focused widget, and returns
 * once the window has handled them all. */
void
sj_test_key_window_press (SjTestKeyWindow    *self,
                          const char * const *keys)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) args = NULL;
  Barrier barrier = { self, self->barriers };

  g_strv_builder_add_many (builder, "key", "--delay", "20", NULL);
  g_strv_builder_addv (builder, (const char **)keys);
  g_strv_builder_add (builder, "F12");
  args = g_strv_builder_end (builder);

  sj_test_run_xdotool ((const char * const *)args);
  sj_test_widgets_spin_until (barrier_passed, &barrier, self->timeout_s, "the keys to arrive");
}

typedef struct
{
  SjTestKeyWindow *self;
  guint64          until;
} Frames;

static gboolean
frames_passed (gpointer data)
{
  Frames *frames = data;

  return frames->self->frames >= frames->until;
}

/* Lets the window draw @n more frames: work done on the next frame (the
 * Markdown render, layouts done on idle) has run. */
void
sj_test_key_window_wait_frames (SjTestKeyWindow *self,
                                guint            n)
{
  Frames frames = { self, self->frames + n };

  sj_test_widgets_spin_until (frames_passed, &frames, self->timeout_s, "frames to be drawn");
}

static GLogWriterOutput
snapshot_race_writer (GLogLevelFlags   log_level,
                      const GLogField *fields,
                      gsize            n_fields,
                      gpointer         user_data)
{
  const char *domain = NULL;
  const char *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0)
        domain = fields[i].value;
      else if (g_strcmp0 (fields[i].key, "MESSAGE") == 0)
        message = fields[i].value;
    }

  /* Only this one GTK-internal warning, about GTK's own gizmos (a
   * scrollbar's slider or trough), is let through; any other warning or
   * critical still ends the test (the default writer aborts on it). */
  if ((log_level & G_LOG_LEVEL_WARNING) != 0 && g_strcmp0 (domain, "Gtk") == 0 && message != NULL &&
      g_str_has_prefix (message, "Trying to snapshot GtkGizmo ") &&
      g_str_has_suffix (message, " without a current allocation"))
    {
      g_test_message ("tolerated GTK 4.8 warning: %s", message);
      return G_LOG_WRITER_HANDLED;
    }

  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/**
 * sj_test_tolerate_gtk_snapshot_race:
 *
 * GTK 4.8 now and then snapshots a scrollbar's slider in the frame in
 * which its adjustment changed, before the slider is allocated again, and
 * warns "Trying to snapshot GtkGizmo … without a current allocation". It
 * is GTK's own widget, the next frame draws it right, and nothing is seen;
 * it shows only on a loaded machine (it failed CI twice in the composer's
 * grow-and-shrink test, and never in dozens of runs on a quiet one), and
 * any test with a scrolled window can meet it.
 * g_test_init() makes every warning fatal: this keeps that one harmless
 * warning from ending a test, and every other one fatal. GTK logs
 * structured messages, which g_test_log_set_fatal_handler() never sees,
 * so this is a log writer; call it before g_test_init() or gtk_test_init()
 * (sj_test_app_init() does, for the tests of the whole window).
 */
void
sj_test_tolerate_gtk_snapshot_race (void)
{
  static gboolean installed;

  /* A process can set its log writer only once. */
  if (installed)
    return;
  installed = TRUE;
  g_log_set_writer_func (snapshot_race_writer, NULL, NULL);
}

/* Every control named ----------------------------------------------------- */

/* The widgets a screen reader lands on and must name. */
static gboolean
is_control (GtkWidget *widget)
{
  GtkWidget *parent = gtk_widget_get_parent (widget);

  /* A menu button's own toggle is the menu button to a screen reader; a
   * spin button's and an entry row's text are their parent. */
  if (parent != NULL && (GTK_IS_MENU_BUTTON (parent) || GTK_IS_SPIN_BUTTON (parent) || GTK_IS_DROP_DOWN (parent)))
    return FALSE;
  if (GTK_IS_TEXT (widget) && parent != NULL && gtk_widget_get_ancestor (parent, GTK_TYPE_EDITABLE) != NULL)
    return FALSE;

  return GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_EXPANDER (widget) ||
         GTK_IS_SWITCH (widget) || GTK_IS_CHECK_BUTTON (widget) || GTK_IS_SCALE (widget) ||
         GTK_IS_DROP_DOWN (widget) || GTK_IS_SPIN_BUTTON (widget) || GTK_IS_EDITABLE (widget) ||
         (GTK_IS_LIST_BOX_ROW (widget) && gtk_list_box_row_get_activatable (GTK_LIST_BOX_ROW (widget)));
}

static gboolean
has_text_label (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && *gtk_label_get_text (GTK_LABEL (widget)) != '\0')
    return TRUE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (has_text_label (child))
      return TRUE;

  return FALSE;
}

/* A label of its own, or labelled by a widget with text. GTK labels a
 * button by its child, which names nothing when the child is an icon:
 * such a button needs a label of its own. */
static gboolean
is_named (GtkWidget *widget)
{
  if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL))
    return TRUE;
  if (!gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY))
    return FALSE;
  if (GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_EXPANDER (widget))
    return has_text_label (widget);

  return TRUE;
}

/* Appends to @unnamed, one line each, the mapped controls under @widget
 * that a screen reader could not name (and icon-only buttons without a
 * tooltip), counting those checked in @checked; @where says where they are. */
void
sj_test_collect_unnamed (GtkWidget  *widget,
                         const char *where,
                         GString    *unnamed,
                         guint      *checked)
{
  GType toast = g_type_from_name ("AdwToastWidget");

  if (!gtk_widget_get_mapped (widget))
    return;
  /* libadwaita 1.2's toast has a close button without name or tooltip
   * (1.4 names it); a toast is transient, not part of a page. */
  if (toast != 0 && G_TYPE_CHECK_INSTANCE_TYPE (widget, toast))
    return;

  if (is_control (widget))
    {
      GtkWidget *icon = GTK_IS_BUTTON (widget) ? gtk_button_get_child (GTK_BUTTON (widget)) : NULL;

      /* An icon-only button says what it does on hover too. */
      if (GTK_IS_IMAGE (icon) && gtk_widget_get_tooltip_text (widget) == NULL &&
          gtk_widget_get_ancestor (widget, GTK_TYPE_WINDOW_CONTROLS) == NULL)
        g_string_append_printf (unnamed, "  %s: an icon-only %s (%s) in %s without a tooltip\n", where, G_OBJECT_TYPE_NAME (widget),
                                gtk_image_get_icon_name (GTK_IMAGE (icon)), G_OBJECT_TYPE_NAME (gtk_widget_get_parent (widget)));
      (*checked)++;
      if (!is_named (widget))
        {
          const char *tooltip = gtk_widget_get_tooltip_text (widget);
          GtkWidget *label = GTK_IS_BUTTON (widget) ? gtk_button_get_child (GTK_BUTTON (widget)) : NULL;

          GtkWidget *parent = gtk_widget_get_parent (widget);

          g_string_append_printf (unnamed, "  %s: %s in %s in %s (%s%s%s)\n", where, G_OBJECT_TYPE_NAME (widget),
                                  G_OBJECT_TYPE_NAME (parent),
                                  G_OBJECT_TYPE_NAME (gtk_widget_get_parent (parent)),
                                  tooltip != NULL ? tooltip : "",
                                  GTK_IS_LABEL (label) ? " label: " : "",
                                  GTK_IS_LABEL (label) ? gtk_label_get_text (GTK_LABEL (label)) : "");
        }
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    sj_test_collect_unnamed (child, where, unnamed, checked);
}

static void
caught_action_cb (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  g_ptr_array_add (user_data, g_variant_dup_string (parameter, NULL));
}

/**
 * sj_test_catch_win_action:
 * @ancestor: where a "win" action group is put (a test's window)
 * @name: the action, taking a string
 * @received: each activation's string is added to it (of g_free)
 *
 * Stands in for a window action a widget activates on its own, as the
 * real window's would be (win.apply-code for a code block's Apply).
 */
void
sj_test_catch_win_action (GtkWidget  *ancestor,
                          const char *name,
                          GPtrArray  *received)
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) action = g_simple_action_new (name, G_VARIANT_TYPE_STRING);

  g_signal_connect (action, "activate", G_CALLBACK (caught_action_cb), received);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (action));
  gtk_widget_insert_action_group (ancestor, "win", G_ACTION_GROUP (group));
}
