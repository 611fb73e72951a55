/* sj-address-policy.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_ADDRESS_POLICY_ERROR (sj_address_policy_error_quark ())

typedef enum
{
  SJ_ADDRESS_POLICY_ERROR_LOCAL,     /* this computer or the local network, while that is not allowed */
  SJ_ADDRESS_POLICY_ERROR_SPECIAL,   /* multicast, broadcast, unspecified, reserved: never */
  SJ_ADDRESS_POLICY_ERROR_ADDRESS,   /* not an http or https address with a host */
  SJ_ADDRESS_POLICY_ERROR_REDIRECTS, /* too many redirects */
} SjAddressPolicyError;

/* What an IP address is, from the least to the most guarded. */
typedef enum
{
  SJ_ADDRESS_CLASS_PUBLIC = 0,
  SJ_ADDRESS_CLASS_LOCAL,            /* loopback, private, link-local, CGNAT, unique-local */
  SJ_ADDRESS_CLASS_SPECIAL,          /* unspecified, multicast, broadcast, reserved */
} SjAddressClass;

GQuark          sj_address_policy_error_quark       (void);

SjAddressClass  sj_address_policy_classify          (GInetAddress  *address);
gboolean        sj_address_policy_is_local_name     (const char    *host);
gboolean        sj_address_policy_check_address     (GInetAddress  *address,
                                                     gboolean       allow_local,
                                                     GError       **error);
gboolean        sj_address_policy_check_host        (const char    *host,
                                                     gboolean       allow_local,
                                                     GError       **error);
gboolean        sj_address_policy_check_uri         (GUri          *uri,
                                                     gboolean       allow_local,
                                                     GError       **error);

G_END_DECLS
