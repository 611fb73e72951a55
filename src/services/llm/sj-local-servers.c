/* sj-local-servers.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Finds a model server running on this computer, for the first start: the
 * usual ports of the usual servers on 127.0.0.1 are asked for their models
 * (GET /v1/models) all at once, each with a short timeout, and the first
 * server in the order below that answers with a model list is the one
 * offered. A port where something else answers (a web server on 8080) is
 * not a model server: it has to answer with a model list to count.
 *
 * Everything is asynchronous and cancellable; nothing waits longer than
 * PROBE_TIMEOUT_S, and a refused connection answers at once.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-llm-client.h"
#include "sj-local-servers-private.h"

#define PROBE_TIMEOUT_S 2

typedef struct
{
  guint16     port;
  const char *name;
} KnownServer;

/* In the order they are offered when several answer. */
static const KnownServer known_servers[] = {
  { 11434, "Ollama" },
  { 8080, "llama.cpp" },
  { 1234, "LM Studio" },
};

/* Set by tests only; NULL for known_servers. */
static GArray *test_ports;

typedef struct
{
  guint           pending;
  SjLocalServer **found;  /* one per port, in order */
  guint           n_ports;
} Detect;

void
sj_local_server_free (SjLocalServer *server)
{
  if (server == NULL)
    return;

  g_free (server->name);
  g_free (server->base_url);
  g_clear_object (&server->catalog);
  g_free (server);
}

static void
detect_free (Detect *detect)
{
  for (guint i = 0; i < detect->n_ports; i++)
    sj_local_server_free (detect->found[i]);
  g_free (detect->found);
  g_free (detect);
}

static guint
n_ports (void)
{
  return test_ports != NULL ? test_ports->len : G_N_ELEMENTS (known_servers);
}

static guint16
port_at (guint i)
{
  return test_ports != NULL ? g_array_index (test_ports, guint16, i) : known_servers[i].port;
}

static const char *
name_of (guint16 port)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_servers); i++)
    if (known_servers[i].port == port)
      return known_servers[i].name;

  /* TRANSLATORS: in "Found a model server at http://127.0.0.1:8081/v1." */
  return _("a model server");
}

static void
finish (GTask *task)
{
  Detect *detect = g_task_get_task_data (task);

  if (g_task_return_error_if_cancelled (task))
    return;

  for (guint i = 0; i < detect->n_ports; i++)
    if (detect->found[i] != NULL)
      {
        g_task_return_pointer (task, g_steal_pointer (&detect->found[i]), (GDestroyNotify) sj_local_server_free);
        return;
      }

  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("No model server answers on this computer."));
}

typedef struct
{
  GTask *task;
  guint  index;
  char  *base_url;
} Probe;

static void
probe_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Probe *probe = user_data;
  Detect *detect = g_task_get_task_data (probe->task);
  g_autoptr(GError) error = NULL;
  SjModelCatalog *catalog;

  catalog = sj_model_catalog_fetch_finish (result, &error);
  if (catalog != NULL)
    {
      SjLocalServer *server = g_new0 (SjLocalServer, 1);

      server->name = g_strdup (name_of (port_at (probe->index)));
      server->base_url = g_steal_pointer (&probe->base_url);
      server->catalog = catalog;
      detect->found[probe->index] = server;
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("No model server at %s: %s", probe->base_url, error->message);

  if (--detect->pending == 0)
    finish (probe->task);

  g_object_unref (probe->task);
  g_free (probe->base_url);
  g_free (probe);
}

/**
 * sj_local_servers_detect_async:
 *
 * Looks for a model server on this computer: Ollama (11434), llama.cpp's
 * server (8080) and LM Studio (1234) on 127.0.0.1, each asked for
 * /v1/models.
 */
void
sj_local_servers_detect_async (GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Detect *detect;

  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_local_servers_detect_async);

  detect = g_new0 (Detect, 1);
  detect->n_ports = n_ports ();
  detect->found = g_new0 (SjLocalServer *, MAX (detect->n_ports, 1));
  detect->pending = detect->n_ports;
  g_task_set_task_data (task, detect, (GDestroyNotify) detect_free);

  if (detect->n_ports == 0)
    {
      finish (task);
      return;
    }

  for (guint i = 0; i < detect->n_ports; i++)
    {
      Probe *probe = g_new0 (Probe, 1);

      probe->task = g_object_ref (task);
      probe->index = i;
      probe->base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", port_at (i));
      /* No key: a local server needs none, and the keyring is not asked. */
      sj_model_catalog_fetch_async ("custom", probe->base_url, NULL, SJ_MODEL_FETCH_DEFAULT, PROBE_TIMEOUT_S,
                                    cancellable, probe_cb, probe);
    }
}

/**
 * sj_local_servers_detect_finish:
 *
 * Returns: (transfer full): the server found, or %NULL with
 *   G_IO_ERROR_NOT_FOUND when none answers (or G_IO_ERROR_CANCELLED)
 */
SjLocalServer *
sj_local_servers_detect_finish (GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_local_servers_detect_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * _sj_local_servers_set_ports:
 * @ports: (nullable) (array length=n_ports): the ports to probe on
 *   127.0.0.1, in order; %NULL for the usual ones
 *
 * For tests only.
 */
void
_sj_local_servers_set_ports (const guint16 *ports,
                             guint          n_ports)
{
  g_clear_pointer (&test_ports, g_array_unref);
  if (ports == NULL)
    return;

  test_ports = g_array_sized_new (FALSE, FALSE, sizeof (guint16), n_ports);
  g_array_append_vals (test_ports, ports, n_ports);
}
