/**
 * The copy buttons (each result's and the curl line's). The clipboard API is absent on http:
 * pages other than localhost and denied in some embeddings; there the text is selected and
 * the user told which keys copy it, rather than failing silently.
 * @module
 */

export interface Copier {
  copy(text: string, button: HTMLButtonElement, source: HTMLElement | undefined): Promise<void>;
  /** Hides the fallback's hint (a new result replaces the selected text). */
  hideHint(): void;
}

/** How long "Copied" stays on the button before it reads "Copy" again. */
const COPIED_MS = 1600;

function selectContents(source: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(source);
  const selection = getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/** `status` is the live region that announces what happened; `hint` shows the fallback's keys. */
export function createCopier(status: HTMLElement, hint: HTMLElement): Copier {
  async function copy(text: string, button: HTMLButtonElement, source: HTMLElement | undefined): Promise<void> {
    try {
      // Absent on pages not served over https or localhost, whatever the DOM typings say.
      if (!('clipboard' in navigator)) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
      button.classList.add('done');
      status.textContent = 'Copied to the clipboard.';
      setTimeout(() => {
        button.textContent = 'Copy';
        button.classList.remove('done');
      }, COPIED_MS);
    } catch {
      // Fallback: select the text so the user can copy it with the keyboard.
      if (source) selectContents(source);
      const keys = /Mac|iPhone|iPad/.test(navigator.userAgent) ? '\u2318C' : 'Ctrl+C';
      hint.textContent = `This browser did not allow copying. The text is selected: press ${keys} to copy it.`;
      hint.hidden = false;
      status.textContent = hint.textContent;
    }
  }
  return {
    copy,
    hideHint(): void {
      hint.hidden = true;
    },
  };
}
