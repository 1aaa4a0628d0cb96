/** A cell as text: strings as they are, everything else as JSON (null shows as empty). */
export const cellText = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** Text typed into a cell back to a value: JSON when it parses as a number, boolean, object or array, else the string. */
export function parseCell(text: string): unknown {
  if (text === '') return null;
  if (/^(-?\d+(\.\d+)?|true|false|null|\{.*\}|\[.*\])$/s.test(text.trim())) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
