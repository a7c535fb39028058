/**
 * What the visitor reads under the box when a check fails: short, and what it is, never a generic
 * "try later" (docs/PROTECT-A-FORM.md lists the English ones with their causes). One set per
 * language the widget bundles ALTCHA's texts for, under ALTCHA's codes, so the reason is in the
 * language of the box; a language without its own set shows English, as ALTCHA does.
 */
export interface Reasons {
  /** 403 insufficient_permissions: the page's origin is not among the key's allowed origins. */
  readonly origin: string;
  /** 401 invalid_api_key. */
  readonly key: string;
  /** 429 rate_limit_exceeded. */
  readonly rateLimited: string;
  /** 422 challenge_failed. */
  readonly refused: string;
  /** No answer: a network failure, or a CSP without Gatehouse in connect-src. */
  readonly network: string;
  /** Anything else, with its code. */
  readonly other: (code: string) => string;
}

export const REASONS: Readonly<Record<string, Reasons>> = {
  en: {
    origin: 'Not allowed on this site: its origin is not one of the Gatehouse key’s allowed origins.',
    key: 'This form’s Gatehouse key is invalid or revoked.',
    rateLimited: 'Too many attempts from here. Wait a minute, then check the box again.',
    refused: 'The proof of work was refused. Check the box to try again.',
    network: 'Gatehouse could not be reached. Check your connection, then the box again.',
    other: (code) => `The check did not complete (${code}). Check the box to try again.`,
  },
  ar: {
    origin: 'غير مسموح به على هذا الموقع: أصله ليس من الأصول المسموح بها لمفتاح Gatehouse.',
    key: 'مفتاح Gatehouse لهذا النموذج غير صالح أو ملغى.',
    rateLimited: 'محاولات كثيرة جدًا من هنا. انتظر دقيقة، ثم حدّد المربع مرة أخرى.',
    refused: 'تم رفض إثبات العمل. حدّد المربع للمحاولة مرة أخرى.',
    network: 'تعذّر الوصول إلى Gatehouse. تحقّق من اتصالك، ثم حدّد المربع مرة أخرى.',
    other: (code) => `لم يكتمل التحقق (${code}). حدّد المربع للمحاولة مرة أخرى.`,
  },
  de: {
    origin: 'Auf dieser Website nicht zugelassen: Ihr Origin gehört nicht zu den erlaubten Origins des Gatehouse-Schlüssels.',
    key: 'Der Gatehouse-Schlüssel dieses Formulars ist ungültig oder widerrufen.',
    rateLimited: 'Zu viele Versuche von hier. Warten Sie eine Minute und setzen Sie dann das Häkchen erneut.',
    refused: 'Der Arbeitsnachweis wurde abgelehnt. Setzen Sie das Häkchen, um es erneut zu versuchen.',
    network: 'Gatehouse ist nicht erreichbar. Prüfen Sie Ihre Verbindung und setzen Sie dann das Häkchen erneut.',
    other: (code) => `Die Prüfung wurde nicht abgeschlossen (${code}). Setzen Sie das Häkchen, um es erneut zu versuchen.`,
  },
  'es-es': {
    origin: 'No permitido en este sitio: su origen no está entre los orígenes permitidos de la clave de Gatehouse.',
    key: 'La clave de Gatehouse de este formulario no es válida o ha sido revocada.',
    rateLimited: 'Demasiados intentos desde aquí. Espera un minuto y vuelve a marcar la casilla.',
    refused: 'La prueba de trabajo ha sido rechazada. Marca la casilla para intentarlo de nuevo.',
    network: 'No se ha podido conectar con Gatehouse. Comprueba tu conexión y vuelve a marcar la casilla.',
    other: (code) => `La comprobación no se ha completado (${code}). Marca la casilla para intentarlo de nuevo.`,
  },
  'fr-fr': {
    origin: 'Non autorisé sur ce site : son origine ne fait pas partie des origines autorisées de la clé Gatehouse.',
    key: 'La clé Gatehouse de ce formulaire est invalide ou révoquée.',
    rateLimited: 'Trop de tentatives depuis cette connexion. Attendez une minute, puis cochez à nouveau la case.',
    refused: 'La preuve de travail a été refusée. Cochez la case pour réessayer.',
    network: 'Impossible de joindre Gatehouse. Vérifiez votre connexion, puis cochez à nouveau la case.',
    other: (code) => `La vérification n’a pas abouti (${code}). Cochez la case pour réessayer.`,
  },
  it: {
    origin: 'Non consentito su questo sito: la sua origine non è tra le origini consentite della chiave Gatehouse.',
    key: 'La chiave Gatehouse di questo modulo non è valida o è stata revocata.',
    rateLimited: 'Troppi tentativi da qui. Attendi un minuto, poi seleziona di nuovo la casella.',
    refused: 'La prova di lavoro è stata rifiutata. Seleziona la casella per riprovare.',
    network: 'Impossibile raggiungere Gatehouse. Controlla la connessione, poi seleziona di nuovo la casella.',
    other: (code) => `La verifica non è stata completata (${code}). Seleziona la casella per riprovare.`,
  },
  ja: {
    origin: 'このサイトでは許可されていません。このサイトのオリジンは Gatehouse キーの許可されたオリジンに含まれていません。',
    key: 'このフォームの Gatehouse キーは無効か、取り消されています。',
    rateLimited: '試行回数が多すぎます。1 分待ってから、もう一度チェックボックスをオンにしてください。',
    refused: 'プルーフ・オブ・ワークが拒否されました。もう一度チェックボックスをオンにしてください。',
    network: 'Gatehouse に接続できませんでした。接続を確認してから、もう一度チェックボックスをオンにしてください。',
    other: (code) => `確認を完了できませんでした (${code})。もう一度チェックボックスをオンにしてください。`,
  },
  nl: {
    origin: 'Niet toegestaan op deze site: de origin staat niet tussen de toegestane origins van de Gatehouse-sleutel.',
    key: 'De Gatehouse-sleutel van dit formulier is ongeldig of ingetrokken.',
    rateLimited: 'Te veel pogingen vanaf hier. Wacht een minuut en vink het vakje dan opnieuw aan.',
    refused: 'Het proof-of-work is geweigerd. Vink het vakje aan om het opnieuw te proberen.',
    network: 'Gatehouse is niet bereikbaar. Controleer je verbinding en vink het vakje dan opnieuw aan.',
    other: (code) => `De controle is niet voltooid (${code}). Vink het vakje aan om het opnieuw te proberen.`,
  },
  pl: {
    origin: 'Niedozwolone na tej stronie: jej pochodzenie (origin) nie należy do dozwolonych dla klucza Gatehouse.',
    key: 'Klucz Gatehouse tego formularza jest nieprawidłowy lub unieważniony.',
    rateLimited: 'Zbyt wiele prób stąd. Odczekaj minutę, a następnie ponownie zaznacz pole.',
    refused: 'Dowód pracy został odrzucony. Zaznacz pole, aby spróbować ponownie.',
    network: 'Nie można połączyć się z Gatehouse. Sprawdź połączenie, a następnie ponownie zaznacz pole.',
    other: (code) => `Weryfikacja nie została ukończona (${code}). Zaznacz pole, aby spróbować ponownie.`,
  },
  'pt-br': {
    origin: 'Não permitido neste site: sua origem não está entre as origens permitidas da chave do Gatehouse.',
    key: 'A chave do Gatehouse deste formulário é inválida ou foi revogada.',
    rateLimited: 'Muitas tentativas a partir daqui. Aguarde um minuto e marque a caixa novamente.',
    refused: 'A prova de trabalho foi recusada. Marque a caixa para tentar novamente.',
    network: 'Não foi possível acessar o Gatehouse. Verifique sua conexão e marque a caixa novamente.',
    other: (code) => `A verificação não foi concluída (${code}). Marque a caixa para tentar novamente.`,
  },
  'pt-pt': {
    origin: 'Não permitido neste site: a sua origem não está entre as origens permitidas da chave do Gatehouse.',
    key: 'A chave do Gatehouse deste formulário é inválida ou foi revogada.',
    rateLimited: 'Demasiadas tentativas a partir daqui. Aguarde um minuto e assinale a caixa novamente.',
    refused: 'A prova de trabalho foi recusada. Assinale a caixa para tentar novamente.',
    network: 'Não foi possível contactar o Gatehouse. Verifique a sua ligação e assinale a caixa novamente.',
    other: (code) => `A verificação não foi concluída (${code}). Assinale a caixa para tentar novamente.`,
  },
  'zh-cn': {
    origin: '此网站不被允许：其来源不在 Gatehouse 密钥允许的来源中。',
    key: '此表单的 Gatehouse 密钥无效或已被吊销。',
    rateLimited: '来自此处的尝试次数过多。请等待一分钟，然后再次勾选复选框。',
    refused: '工作量证明被拒绝。请再次勾选复选框重试。',
    network: '无法连接到 Gatehouse。请检查网络连接，然后再次勾选复选框。',
    other: (code) => `验证未完成（${code}）。请再次勾选复选框重试。`,
  },
  'zh-tw': {
    origin: '此網站不被允許：其來源不在 Gatehouse 金鑰允許的來源中。',
    key: '此表單的 Gatehouse 金鑰無效或已被撤銷。',
    rateLimited: '來自此處的嘗試次數過多。請等候一分鐘，然後再次勾選核取方塊。',
    refused: '工作量證明遭到拒絕。請再次勾選核取方塊重試。',
    network: '無法連線到 Gatehouse。請檢查網路連線，然後再次勾選核取方塊。',
    other: (code) => `驗證未完成（${code}）。請再次勾選核取方塊重試。`,
  },
};

/** The reason for a failure's code, in the language ALTCHA shows (its code, e.g. `de` or `pt-br`). */
export function reasonText(code: string, language: string): string {
  const r = REASONS[language] ?? REASONS.en;
  switch (code) {
    case 'insufficient_permissions':
      return r.origin;
    case 'invalid_api_key':
      return r.key;
    case 'rate_limit_exceeded':
      return r.rateLimited;
    case 'challenge_failed':
      return r.refused;
    case 'network_error':
      return r.network;
    default:
      return r.other(code);
  }
}
