/* SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * bench/audio-floor's WebKitGTK side: a bare GTK window with one WebKitWebView
 * showing a local page, set up as Strudel Jam sets up its view (autoplay
 * allowed, no accelerated compositing without a GPU, two output channels),
 * and nothing else: no Strudel, no editor, no side panel. What this costs is
 * the engine's own floor.
 *
 *   floor-host FILE.html
 */

#include <gtk/gtk.h>
#include <webkit/webkit.h>

static void
activate_cb (GtkApplication *app,
             gpointer        user_data)
{
  const char *uri = user_data;
  g_autoptr(WebKitWebsitePolicies) policies = NULL;
  g_autoptr(WebKitSettings) settings = NULL;
  GtkWidget *window;
  GtkWidget *view;

  policies = webkit_website_policies_new_with_policies ("autoplay", WEBKIT_AUTOPLAY_ALLOW, NULL);
  settings = webkit_settings_new_with_settings ("hardware-acceleration-policy",
                                                WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER,
                                                "allow-file-access-from-file-urls", TRUE,
                                                NULL);
  view = g_object_new (WEBKIT_TYPE_WEB_VIEW,
                       "website-policies", policies,
                       "settings", settings,
                       NULL);
  window = gtk_application_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_set_child (GTK_WINDOW (window), view);
  webkit_web_view_load_uri (WEBKIT_WEB_VIEW (view), uri);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GtkApplication) app = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;

  if (argc != 2)
    {
      g_printerr ("usage: floor-host FILE.html\n");
      return 2;
    }
  /* As sj_application_prepare_env does, for the same reasons. */
  g_setenv ("WEBKIT_GST_MAX_NUMBER_OF_AUDIO_OUTPUT_CHANNELS", "2", FALSE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);

  file = g_file_new_for_commandline_arg (argv[1]);
  uri = g_file_get_uri (file);
  app = gtk_application_new (NULL, G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), uri);
  return g_application_run (G_APPLICATION (app), 1, argv);
}
