/* sj-secrets-monitor.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Tells everyone in the process that an API key was stored or cleared
 * through SjSecrets. The key can be set in more than one place (the Chat's
 * first-start status page, the Settings page, another window), and whoever
 * uses or shows it (SjAgentConfig, the Settings page's key status) must
 * follow at once: the Secret Service has no signal we could rely on for our
 * own items, so SjSecrets announces its own changes here.
 *
 * The signal carries the provider and base URL the key is kept under,
 * never the key.
 */

#include "config.h"

#include "sj-secrets-monitor.h"

struct _SjSecretsMonitor
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (SjSecretsMonitor, sj_secrets_monitor, G_TYPE_OBJECT)

enum {
  KEY_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
sj_secrets_monitor_class_init (SjSecretsMonitorClass *klass)
{
  /**
   * SjSecretsMonitor::key-changed:
   * @provider: the provider the key is kept under
   * @base_url: the base URL the key is kept under
   *
   * A key was stored, replaced or cleared.
   */
  signals[KEY_CHANGED] = g_signal_new ("key-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
sj_secrets_monitor_init (SjSecretsMonitor *self)
{
}

/**
 * sj_secrets_monitor_get_default:
 *
 * Returns: (transfer none): the process's monitor, which lives until exit
 */
SjSecretsMonitor *
sj_secrets_monitor_get_default (void)
{
  static SjSecretsMonitor *monitor;

  if (g_once_init_enter (&monitor))
    g_once_init_leave (&monitor, g_object_new (SJ_TYPE_SECRETS_MONITOR, NULL));

  return monitor;
}

/* Called by SjSecrets once a key is stored or cleared. */
void
sj_secrets_monitor_key_changed (SjSecretsMonitor *self,
                                const char       *provider,
                                const char       *base_url)
{
  g_return_if_fail (SJ_IS_SECRETS_MONITOR (self));
  g_return_if_fail (provider != NULL && base_url != NULL);

  g_signal_emit (self, signals[KEY_CHANGED], 0, provider, base_url);
}
