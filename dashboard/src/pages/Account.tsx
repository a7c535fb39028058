import { FormEvent, useState } from 'react';
import { Account, Plan, useAccount, useChangePlan, useDeleteAccount, usePlans, useRequireMfa, useUpdateAccount } from '../api/account';
import { INPUT_LIMITS } from '../api/input-limits';
import { waitLabel } from '../api/keys';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Dialog } from '../components/Dialog';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { formatDate } from '../format';
import { can, Me } from '../roles';

export function AccountPage() {
  const me = useMeContext();
  const account = useAccount();
  const plans = usePlans();
  return (
    <>
      <PageTitle>Account and plan</PageTitle>
      <ErrorNote error={account.error} />
      {account.isPending && <p role="status">Loading the account…</p>}
      {account.data && <AccountSettings account={account.data} editable={can.editAccount(me.role)} limits={me.limits} />}
      {account.data && <SignInProtection account={account.data} mayChange={me.role === 'OWNER'} />}
      <section className="panel" aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        <p>
          Limits count per minute and per endpoint: API requests per key, dashboard requests per person.
          {!can.changePlan(me.role) && ' Only the owner changes the plan.'}
        </p>
        <ErrorNote error={plans.error} />
        {plans.isPending && <p role="status">Loading plans…</p>}
        {plans.data && account.data && <Plans plans={plans.data} current={account.data.plan.id} mayChange={can.changePlan(me.role)} />}
      </section>
      {account.data && <DangerZone account={account.data} mayDelete={can.deleteAccount(me.role)} />}
    </>
  );
}

/** `limits`: the bounds the server gives for the nonce lifetime. */
function AccountSettings({ account, editable, limits }: { account: Account; editable: boolean; limits: Me['limits'] }) {
  const [saved, setSaved] = useState(false);
  const save = useUpdateAccount({ onSuccess: () => setSaved(true) });
  const ttl = limits.nonceTtlSeconds;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = fieldText(form, 'name').trim();
    const nonceTtlSeconds = Number(form.get('nonceTtlSeconds'));
    setSaved(false);
    save.mutate({
      ...(name !== account.name ? { name } : {}),
      ...(nonceTtlSeconds !== account.nonceTtlSeconds ? { nonceTtlSeconds } : {}),
    });
  }

  if (!editable) {
    return (
      <section className="panel" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <dl className="facts">
          <dt>Name</dt>
          <dd>{account.name}</dd>
          <dt>Nonce lifetime</dt>
          <dd>{account.nonceTtlSeconds.toLocaleString()} seconds</dd>
          <dt>Created</dt>
          <dd>{formatDate(account.createdAt)}</dd>
        </dl>
        <p className="hint">Only the owner and the admins change these.</p>
      </section>
    );
  }
  return (
    <section className="panel" aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      <p className="hint">Created {formatDate(account.createdAt)}.</p>
      <form className="settings" onSubmit={submit} aria-busy={save.isPending}>
        <Field label="Account name">
          {(props) => <input {...props} name="name" required maxLength={INPUT_LIMITS.name.max} defaultValue={account.name} />}
        </Field>
        <Field
          label="Nonce lifetime (seconds)"
          hint={`How long a nonce from your widget stays valid for your server to verify, ${ttl.min}–${ttl.max}. Applies to nonces issued from now on.`}
        >
          {(props) => (
            <input
              {...props}
              name="nonceTtlSeconds"
              type="number"
              inputMode="numeric"
              required
              min={ttl.min}
              max={ttl.max}
              step={1}
              defaultValue={account.nonceTtlSeconds}
            />
          )}
        </Field>
        <ErrorNote error={save.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            Save
          </button>
          <span role="status" className="copied">
            {saved && !save.isPending ? 'Saved.' : ''}
          </span>
        </p>
      </form>
    </section>
  );
}

/** Whether every member must sign in with a second factor (`requireMfa`; the owner decides). */
function SignInProtection({ account, mayChange }: { account: Account; mayChange: boolean }) {
  const required = account.requireMfa;
  const [saved, setSaved] = useState(false);
  const change = useRequireMfa({ onSuccess: () => setSaved(true) });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    change.mutate(new FormData(event.currentTarget).get('requireMfa') === 'on');
  }

  return (
    <section className="panel" aria-labelledby="protection-title">
      <h2 id="protection-title">Sign-in protection</h2>
      <p>
        {required
          ? 'Every member must sign in with a second factor (an authenticator app or a passkey).'
          : 'Members may sign in with a password alone; each can add a second factor on their Security page.'}{' '}
        The Team page shows who has one.
      </p>
      {mayChange ? (
        <form className="settings" onSubmit={submit} aria-busy={change.isPending}>
          <label className="inline">
            <input type="checkbox" name="requireMfa" defaultChecked={required} key={String(required)} /> Require a second factor for every
            member
          </label>
          <p className="hint">
            A member without one can then do nothing but set one up: the dashboard takes them to their Security page. Set up yours first.
          </p>
          <ErrorNote error={change.error} />
          <p className="actions">
            <button type="submit" className="primary" disabled={change.isPending}>
              Save
            </button>
            <span role="status" className="copied">
              {saved && !change.isPending ? 'Saved.' : ''}
            </span>
          </p>
        </form>
      ) : (
        <p className="hint">Only the owner changes this.</p>
      )}
    </section>
  );
}

function Plans({ plans, current, mayChange }: { plans: Plan[]; current: string; mayChange: boolean }) {
  const [target, setTarget] = useState<Plan | null>(null);
  const currentPlan = plans.find((p) => p.id === current);
  return (
    <>
      <ul className="plans">
        {plans.map((plan) => (
          <li
            key={plan.id}
            className={plan.id === current ? 'plan current' : 'plan'}
            aria-current={plan.id === current ? 'true' : undefined}
          >
            <h3>
              {plan.name} {plan.id === current && <span className="badge active">Current plan</span>}
            </h3>
            <dl>
              <dt>API requests a minute</dt>
              <dd>{plan.apiRequestsPerMinute.toLocaleString()}</dd>
              <dt>Dashboard requests a minute</dt>
              <dd>{plan.managementRequestsPerMinute.toLocaleString()}</dd>
              <dt>Default widget difficulty</dt>
              <dd>{waitLabel(plan.challengeWaitMs)}</dd>
            </dl>
            {mayChange && plan.id !== current && (
              <button type="button" onClick={() => setTarget(plan)} aria-label={`Switch to ${plan.name}`}>
                Switch to {plan.name}
              </button>
            )}
          </li>
        ))}
      </ul>
      {target && <ChangePlanDialog plan={target} from={currentPlan} onClose={() => setTarget(null)} />}
    </>
  );
}

function ChangePlanDialog({ plan, from, onClose }: { plan: Plan; from: Plan | undefined; onClose: () => void }) {
  const change = useChangePlan(plan.id, { onSuccess: onClose });
  const lower = from !== undefined && plan.apiRequestsPerMinute < from.apiRequestsPerMinute;
  return (
    <ConfirmDialog title={`Switch to ${plan.name}?`} action="Change plan" mutation={change} onClose={onClose}>
      <p>
        From the next request on, each API key may make {plan.apiRequestsPerMinute.toLocaleString()} requests a minute per endpoint, and
        each person {plan.managementRequestsPerMinute.toLocaleString()} in the dashboard
        {from ? ` (now ${from.apiRequestsPerMinute.toLocaleString()} and ${from.managementRequestsPerMinute.toLocaleString()})` : ''}.
      </p>
      {lower && <p className="warning">Lower limits: traffic above them is refused (429) from the next request on.</p>}
    </ConfirmDialog>
  );
}

function DangerZone({ account, mayDelete }: { account: Account; mayDelete: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="panel danger-zone" aria-labelledby="danger-title">
      <h2 id="danger-title">Delete the account</h2>
      <p>
        Deleting {account.name} removes its members, keys, nonces, usage and audit log at once; every key and sign-in of it stops working.
        It cannot be undone.
      </p>
      {mayDelete ? (
        <button type="button" className="danger" onClick={() => setOpen(true)}>
          Delete account…
        </button>
      ) : (
        <p className="hint">Only the owner deletes the account.</p>
      )}
      {open && <DeleteAccountDialog account={account} onClose={() => setOpen(false)} />}
    </section>
  );
}

function DeleteAccountDialog({ account, onClose }: { account: Account; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const remove = useDeleteAccount(typed);
  return (
    <Dialog title={`Delete ${account.name}?`} onClose={onClose}>
      <p className="warning">
        Everything of the account goes: members, API keys (your sites' widgets and servers stop working), nonces, usage and the audit log.
        This cannot be undone.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          remove.mutate();
        }}
      >
        <Field label="Type the account name to confirm" hint={`Exactly: ${account.name}`}>
          {(props) => <input {...props} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} />}
        </Field>
        <ErrorNote error={remove.error} />
        <p className="actions">
          <button type="submit" className="danger" disabled={typed !== account.name || remove.isPending}>
            Delete account for good
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}
