/* sj-application-mcp.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The primary instance's private D-Bus interface for `strudel-jam --mcp`
 * (issue 34): SJ_MCP_DBUS_INTERFACE at the application's object path, on
 * the connection GApplication registers with, so it exists exactly while
 * this process owns the app's name. Each call goes to the active window
 * (opened when there is none), which runs it (sj-window-mcp.c). Only the
 * session bus's own user can reach it: the session bus is the user's.
 */

#include "config.h"

#include "sj-application-private.h"
#include "sj-mcp-backend.h"
#include "sj-window.h"

static void
method_call_cb (GDBusConnection       *connection,
                const char            *sender,
                const char            *object_path,
                const char            *interface_name,
                const char            *method_name,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  SjApplication *self = user_data;
  GtkWindow *window;

  g_assert (SJ_IS_APPLICATION (self));

  window = gtk_application_get_active_window (GTK_APPLICATION (self));
  if (window == NULL)
    {
      g_application_activate (G_APPLICATION (self));
      window = gtk_application_get_active_window (GTK_APPLICATION (self));
    }
  if (!SJ_IS_WINDOW (window))
    {
      g_dbus_method_invocation_return_error_literal (invocation, SJ_MCP_ERROR, SJ_MCP_ERROR_UNAVAILABLE,
                                                     "Strudel Jam has no window to jam in");
      return;
    }

  sj_window_handle_mcp_call (SJ_WINDOW (window), invocation);
}

static const GDBusInterfaceVTable vtable = { method_call_cb, NULL, NULL, { 0 } };

gboolean
_sj_application_mcp_register (SjApplication    *self,
                              GDBusConnection  *connection,
                              const char       *object_path,
                              GError          **error)
{
  g_autoptr(GDBusNodeInfo) info = NULL;

  (void)sj_mcp_error_quark ();
  info = g_dbus_node_info_new_for_xml (sj_mcp_dbus_interface_xml, error);
  if (info == NULL)
    return FALSE;

  self->mcp_registration = g_dbus_connection_register_object (connection, object_path, info->interfaces[0],
                                                              &vtable, self, NULL, error);
  if (self->mcp_registration == 0)
    return FALSE;
  self->mcp_connection = g_object_ref (connection);

  return TRUE;
}

void
_sj_application_mcp_unregister (SjApplication *self)
{
  if (self->mcp_registration != 0 && self->mcp_connection != NULL)
    g_dbus_connection_unregister_object (self->mcp_connection, self->mcp_registration);
  self->mcp_registration = 0;
  g_clear_object (&self->mcp_connection);
}
