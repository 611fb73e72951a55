/* sj-application.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The application: one main window, app-wide actions and accelerators.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-platform.h"
#include "sj-resources.h"
#include "sj-window.h"

struct _SjApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (SjApplication, sj_application, ADW_TYPE_APPLICATION)

/**
 * sj_application_prepare_env:
 *
 * Must run before anything starts WebKit. WebKit's GStreamer backend asks
 * the audio sink for its channel count; where the sink reports none (as
 * PipeWire and headless setups do), every note fails with "Channel count
 * cannot be 0" unless the maximum is set. A value the user set wins.
 *
 * It also picks the GTK renderer on machines without a GPU (see below).
 */
void
sj_application_prepare_env (void)
{
  g_setenv ("WEBKIT_GST_MAX_NUMBER_OF_AUDIO_OUTPUT_CHANNELS", "2", FALSE);

  /* Without a GPU (no DRM render node), GTK's default GL renderer runs on
   * Mesa's software rasterizer, and bench/startup measured it as the largest
   * cost of starting: with the cairo renderer the app is ready in 0.97 s
   * instead of 1.35 s and holds 321 MiB instead of 391 MiB at ready (headless
   * Chromium: 1.12 s, 396 MiB). With a GPU, GTK's own choice stands. A
   * GSK_RENDERER the user set always wins. */
  if (g_getenv ("GSK_RENDERER") == NULL && !sj_platform_has_gpu ())
    g_setenv ("GSK_RENDERER", "cairo", TRUE);
}

static void
sj_application_activate (GApplication *app)
{
  GtkWindow *window;

  g_assert (SJ_IS_APPLICATION (app));

  /* A second launch raises the running jam instead of opening another
   * window that would play on top of it. */
  window = gtk_application_get_active_window (GTK_APPLICATION (app));
  if (window == NULL)
    window = GTK_WINDOW (sj_window_new (GTK_APPLICATION (app)));

  gtk_window_present (window);
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  SjApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  static const char *developers[] = { "Strudel Jam developers", NULL };
  AdwAboutWindow *about;

  about = ADW_ABOUT_WINDOW (adw_about_window_new ());
  adw_about_window_set_application_name (about, _("Strudel Jam"));
  adw_about_window_set_application_icon (about, APP_ID);
  adw_about_window_set_version (about, PACKAGE_VERSION);
  adw_about_window_set_developer_name (about, _("Strudel Jam developers"));
  adw_about_window_set_developers (about, developers);
  adw_about_window_set_website (about, "https://github.com/strudeljam/strudel-jam");
  adw_about_window_set_issue_url (about, "https://github.com/strudeljam/strudel-jam/issues");
  adw_about_window_set_license_type (about, GTK_LICENSE_AGPL_3_0);
  adw_about_window_set_copyright (about, _("© 2026 Strudel Jam developers"));
  adw_about_window_set_comments (about,
                                 _("Live-code music with Strudel and an AI partner. "
                                   "The music never stops: changes are checked first and land on the next cycle."));
  /* Strudel is the heart of the app; credit it where users look. */
  adw_about_window_add_credit_section (about, _("Strudel"), (const char *[]) {
                                         "Felix Roos and the Strudel contributors https://strudel.cc",
                                         NULL });
  adw_about_window_add_legal_section (about, "Strudel",
                                      _("© Strudel contributors"),
                                      GTK_LICENSE_AGPL_3_0, NULL);
  if (window != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (about), window);
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SjApplication *self = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));

  /* Close rather than quit outright so that each window saves its code. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

static const GActionEntry app_entries[] = {
  { "about", about_action },
  { "quit", quit_action },
};

static void
sj_application_startup (GApplication *app)
{
  static const struct {
    const char *action;
    const char *accels[2];
  } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "win.play", { "<Control>Return", NULL } },
    { "win.stop", { "<Control>period", NULL } },
    { "win.show-panel", { "F9", NULL } },
    { "win.show-console", { "<Control><Shift>c", NULL } },
    { "win.focus-editor", { "<Control>e", NULL } },
  };

  G_APPLICATION_CLASS (sj_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_entries, G_N_ELEMENTS (app_entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);
}

static void
sj_application_class_init (SjApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = sj_application_activate;
  app_class->startup = sj_application_startup;

  sj_register_resource ();
}

static void
sj_application_init (SjApplication *self)
{
}

SjApplication *
sj_application_new (void)
{
  return g_object_new (SJ_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", "/io/github/strudeljam/StrudelJam",
                       NULL);
}
