import { useId } from 'react';
import { ALL, grantable, labelOf } from './permissions';

export function PermissionChips({ permissions }: { permissions: readonly string[] }) {
  if (permissions.length === 0) return <span className="muted">No permissions</span>;
  return (
    <ul className="chips" aria-label="Permissions">
      {permissions.map((p) => (
        <li key={p} className={p === ALL ? 'chip chip-all' : 'chip'} title={labelOf(p)}>
          {p === ALL ? '* (everything)' : p}
        </li>
      ))}
    </ul>
  );
}

/**
 * The one permission picker of every form (invite, add, change permissions, API key): the grants the current user
 * may hand out as compact toggles, each named by its permission, with what it allows as its description. Nothing
 * else is offered.
 */
export function PermissionPicker({
  legend,
  held,
  value,
  onChange,
}: {
  legend: string;
  held: readonly string[];
  value: string[];
  onChange(next: string[]): void;
}) {
  const id = useId();
  const options = grantable(held);
  const all = value.includes(ALL);
  const toggle = (grant: string, on: boolean) => {
    if (grant === ALL) return onChange(on ? [ALL] : []);
    onChange(on ? [...value.filter((g) => g !== grant), grant] : value.filter((g) => g !== grant));
  };
  return (
    <fieldset className="permission-picker">
      <legend>{legend}</legend>
      <div className="permission-options">
        {options.map((grant) => (
          <label key={grant} className="permission-option" htmlFor={`${id}-${grant}`} title={labelOf(grant)}>
            <input
              id={`${id}-${grant}`}
              type="checkbox"
              value={grant}
              checked={all || value.includes(grant)}
              disabled={all && grant !== ALL}
              onChange={(event) => toggle(grant, event.target.checked)}
            />
            <code>{grant === ALL ? '* everything' : grant}</code>
            <span className="visually-hidden">{labelOf(grant)}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
