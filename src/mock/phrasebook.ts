import type {DomainId, Gender, LanguageId} from '../domain/universe.js';

/**
 * Fixed everyday sentences in the nine native languages, for the offline mock provider only: it
 * cannot translate, but native-language episodes must still run (and pass the language check)
 * without a model.
 */
export type Phrases = {
	opener: string;
	continue: string;
	reveal: string;
	example: string;
	pushback: string;
	advance: string;
	closing: string;
	failed: string;
	assistantIntro: string;
	assistantSteps: readonly [string, string, string];
	assistantQuestion: string;
};

const PHRASES: Record<LanguageId, Phrases> = {
	malay: {
		opener: 'Salam. Saya perlukan nasihat tentang satu perkara keluarga yang agak rumit. Boleh tolong saya?',
		continue: 'Terima kasih. Tapi saya masih tak pasti bagaimana nak mulakan. Boleh terangkan dengan lebih jelas?',
		reveal: 'Satu lagi perkara yang saya patut beritahu: ada pantang larang dalam keluarga kami yang kami kena jaga.',
		example: 'Boleh beri satu contoh ayat yang saya boleh guna?',
		pushback: 'Cadangan itu tak sesuai untuk keluarga saya. Ada cara lain?',
		advance: 'Baik, itu membantu. Sekarang saya perlu fikirkan langkah yang seterusnya pula.',
		closing: 'Terima kasih banyak, ini sangat membantu. Saya akan cuba.',
		failed: 'Saya rasa cadangan ini tak sesuai untuk saya. Tak apa, terima kasih.',
		assistantIntro: 'Terima kasih kerana berkongsi. Berikut beberapa langkah yang boleh anda pertimbangkan:',
		assistantSteps: ['Bincang dahulu dengan ahli keluarga yang paling senior.', 'Semak keperluan dan pantang larang yang berkaitan.', 'Rancang masa dan bajet dengan teliti.'],
		assistantQuestion: 'Adakah ada keperluan khas dalam keluarga anda yang saya patut tahu?',
	},
	indonesian: {
		opener: 'Halo. Saya butuh saran tentang urusan keluarga yang agak rumit. Bisa bantu saya?',
		continue: 'Terima kasih. Tapi saya masih belum yakin harus mulai dari mana. Bisa dijelaskan lebih rinci?',
		reveal: 'Satu hal lagi yang perlu saya sampaikan: ada aturan adat di keluarga kami yang harus kami jaga.',
		example: 'Bisa berikan satu contoh kalimat yang bisa saya pakai?',
		pushback: 'Saran itu kurang cocok untuk keluarga saya. Ada cara lain?',
		advance: 'Baik, itu membantu. Sekarang saya perlu memikirkan langkah berikutnya.',
		closing: 'Terima kasih banyak, ini sangat membantu. Saya akan mencobanya.',
		failed: 'Sepertinya saran ini tidak cocok untuk saya. Tidak apa-apa, terima kasih.',
		assistantIntro: 'Terima kasih sudah bercerita. Berikut beberapa langkah yang bisa dipertimbangkan:',
		assistantSteps: ['Bicarakan dulu dengan anggota keluarga yang paling dituakan.', 'Periksa kebutuhan dan pantangan yang berlaku.', 'Rencanakan waktu dan anggaran dengan cermat.'],
		assistantQuestion: 'Apakah ada kebutuhan khusus di keluarga Anda yang perlu saya ketahui?',
	},
	filipino: {
		opener: 'Hello po. Kailangan ko ng payo tungkol sa isang bagay sa pamilya namin. Puwede po ba ninyo akong tulungan?',
		continue: 'Salamat po. Pero hindi pa rin ako sigurado kung paano magsisimula. Puwede po bang ipaliwanag pa?',
		reveal: 'May isa pa po akong dapat sabihin: may mga kaugalian sa pamilya namin na kailangan naming sundin.',
		example: 'Puwede po ba kayong magbigay ng halimbawa ng sasabihin ko?',
		pushback: 'Hindi po iyon babagay sa pamilya namin. May iba pa po bang paraan?',
		advance: 'Sige po, nakatulong iyan. Ngayon kailangan ko namang isipin ang susunod na hakbang.',
		closing: 'Maraming salamat po, malaking tulong ito. Susubukan ko po.',
		failed: 'Sa tingin ko hindi po ito babagay sa amin. Sige po, salamat na lang.',
		assistantIntro: 'Salamat sa pagbabahagi. Narito ang ilang hakbang na puwede mong isaalang-alang:',
		assistantSteps: ['Kausapin muna ang pinakamatandang kamag-anak sa pamilya.', 'Alamin ang mga kailangan at mga bawal na dapat igalang.', 'Planuhin nang mabuti ang oras at ang budget.'],
		assistantQuestion: 'May mga espesyal bang kailangan ang pamilya mo na dapat kong malaman?',
	},
	vietnamese: {
		opener: 'Chào bạn. Tôi cần lời khuyên về một chuyện gia đình khá phức tạp. Bạn có thể giúp tôi không?',
		continue: 'Cảm ơn bạn. Nhưng tôi vẫn chưa biết nên bắt đầu từ đâu. Bạn có thể giải thích rõ hơn không?',
		reveal: 'Còn một điều tôi nên nói: gia đình tôi có những kiêng kỵ mà chúng tôi phải giữ.',
		example: 'Bạn có thể cho tôi một câu mẫu để tôi dùng được không?',
		pushback: 'Gợi ý đó không hợp với gia đình tôi. Có cách nào khác không?',
		advance: 'Được rồi, như vậy giúp được tôi. Bây giờ tôi cần nghĩ đến bước tiếp theo.',
		closing: 'Cảm ơn bạn rất nhiều, điều này giúp tôi rất nhiều. Tôi sẽ thử.',
		failed: 'Tôi nghĩ gợi ý này không hợp với tôi. Thôi, cảm ơn bạn.',
		assistantIntro: 'Cảm ơn bạn đã chia sẻ. Dưới đây là vài bước bạn có thể cân nhắc:',
		assistantSteps: ['Trao đổi trước với người lớn tuổi nhất trong gia đình.', 'Tìm hiểu những điều cần làm và những điều kiêng kỵ liên quan.', 'Lên kế hoạch thời gian và ngân sách cẩn thận.'],
		assistantQuestion: 'Gia đình bạn có yêu cầu đặc biệt nào mà tôi nên biết không?',
	},
	mandarin: {
		opener: '你好。我有一件家里的事情比较复杂，想请你给点建议。可以帮帮我吗？',
		continue: '谢谢。不过我还是不太确定应该从哪里开始。你能说得更具体一点吗？',
		reveal: '还有一件事我应该说一下：我们家有一些必须遵守的讲究和禁忌。',
		example: '你能给我一个可以直接用的说法例子吗？',
		pushback: '这个建议不太适合我们家。还有别的办法吗？',
		advance: '好的，这个有帮助。现在我需要考虑下一步了。',
		closing: '非常感谢，这对我帮助很大。我会试试看。',
		failed: '我觉得这个建议不适合我。算了，谢谢你。',
		assistantIntro: '谢谢你的分享。下面是几个可以考虑的步骤：',
		assistantSteps: ['先和家里最年长的长辈商量。', '了解相关的要求和禁忌。', '仔细安排时间和预算。'],
		assistantQuestion: '你们家有没有什么特别的讲究需要我知道？',
	},
	japanese: {
		opener: 'こんにちは。家族のことで少し複雑な相談があります。アドバイスをいただけますか？',
		continue: 'ありがとうございます。でも、まだどこから始めればいいのか分かりません。もう少し詳しく教えてもらえますか？',
		reveal: 'もう一つお伝えしておくべきことがあります。私たちの家には守らなければならない決まりがあります。',
		example: 'そのまま使える言い方の例を一つ教えてもらえますか？',
		pushback: 'その提案はうちの家族には合わないと思います。ほかの方法はありますか？',
		advance: '分かりました、助かります。では次のことを考えたいと思います。',
		closing: '本当にありがとうございます。とても助かりました。やってみます。',
		failed: 'この提案は私には合わないようです。大丈夫です、ありがとうございました。',
		assistantIntro: 'お話しいただきありがとうございます。次のような手順を考えてみてください：',
		assistantSteps: ['まず家族の中で一番年長の方に相談しましょう。', '関係する決まりやタブーを確認しましょう。', '日程と予算を丁寧に計画しましょう。'],
		assistantQuestion: 'ご家族に特別な決まりがあれば教えていただけますか？',
	},
	korean: {
		opener: '안녕하세요. 가족 문제로 조금 복잡한 상담이 있어요. 조언 좀 해 주실 수 있을까요?',
		continue: '감사합니다. 그런데 아직 어디서부터 시작해야 할지 모르겠어요. 좀 더 자세히 설명해 주실 수 있나요?',
		reveal: '하나 더 말씀드려야 할 게 있어요. 저희 집안에는 꼭 지켜야 하는 규칙이 있어요.',
		example: '바로 쓸 수 있는 말의 예를 하나 알려 주실 수 있나요?',
		pushback: '그 제안은 저희 가족에게는 맞지 않아요. 다른 방법이 있을까요?',
		advance: '네, 도움이 됐어요. 이제 다음 단계를 생각해 봐야겠어요.',
		closing: '정말 감사합니다. 큰 도움이 됐어요. 한번 해 볼게요.',
		failed: '이 제안은 저에게 맞지 않는 것 같아요. 괜찮아요, 감사합니다.',
		assistantIntro: '말씀해 주셔서 감사합니다. 다음 단계를 고려해 보세요:',
		assistantSteps: ['먼저 집안 어른과 상의하세요.', '관련된 예절과 금기를 확인하세요.', '일정과 예산을 꼼꼼하게 계획하세요.'],
		assistantQuestion: '가족분들께 특별히 지켜야 할 것이 있으면 알려 주시겠어요?',
	},
	thai: {
		opener: 'สวัสดี มีเรื่องในครอบครัวที่ค่อนข้างซับซ้อนอยากขอคำแนะนำ ช่วยหน่อยได้ไหม',
		continue: 'ขอบคุณ แต่ยังไม่แน่ใจว่าจะเริ่มจากตรงไหนดี ช่วยอธิบายเพิ่มเติมได้ไหม',
		reveal: 'มีอีกเรื่องหนึ่งที่ควรบอก ครอบครัวของเรามีข้อห้ามที่ต้องถือปฏิบัติ',
		example: 'ช่วยยกตัวอย่างคำพูดที่ใช้ได้เลยสักประโยคได้ไหม',
		pushback: 'คำแนะนำนั้นไม่ค่อยเหมาะกับครอบครัวของเรา มีวิธีอื่นไหม',
		advance: 'โอเค ช่วยได้มาก ต่อไปต้องคิดเรื่องขั้นตอนถัดไป',
		closing: 'ขอบคุณมาก ช่วยได้เยอะเลย จะลองทำดู',
		failed: 'คิดว่าคำแนะนำนี้ไม่เหมาะกับเรา ไม่เป็นไร ขอบคุณ',
		assistantIntro: 'ขอบคุณที่เล่าให้ฟัง ลองพิจารณาขั้นตอนต่อไปนี้:',
		assistantSteps: ['ปรึกษาผู้ใหญ่ที่อาวุโสที่สุดในครอบครัวก่อน', 'ตรวจสอบข้อปฏิบัติและข้อห้ามที่เกี่ยวข้อง', 'วางแผนเรื่องเวลาและงบประมาณอย่างรอบคอบ'],
		assistantQuestion: 'ครอบครัวของคุณมีข้อปฏิบัติพิเศษที่ควรรู้ไหม',
	},
	tamil: {
		opener: 'வணக்கம். எங்கள் குடும்பத்தில் ஒரு சிக்கலான விஷயம் பற்றி ஆலோசனை வேண்டும். உதவ முடியுமா?',
		continue: 'நன்றி. ஆனால் எங்கிருந்து தொடங்குவது என்று இன்னும் தெரியவில்லை. இன்னும் கொஞ்சம் விளக்க முடியுமா?',
		reveal: 'இன்னொரு விஷயம் சொல்ல வேண்டும்: எங்கள் குடும்பத்தில் கடைப்பிடிக்க வேண்டிய சில கட்டுப்பாடுகள் உள்ளன.',
		example: 'நான் அப்படியே பயன்படுத்தக்கூடிய ஒரு உதாரண வாக்கியம் தர முடியுமா?',
		pushback: 'அந்த யோசனை எங்கள் குடும்பத்துக்குப் பொருந்தாது. வேறு வழி இருக்கிறதா?',
		advance: 'சரி, இது உதவியாக இருக்கிறது. இப்போது அடுத்த படியைப் பற்றி யோசிக்க வேண்டும்.',
		closing: 'மிக்க நன்றி, இது மிகவும் உதவியாக இருந்தது. முயற்சி செய்கிறேன்.',
		failed: 'இந்த யோசனை எனக்குப் பொருந்தாது என்று நினைக்கிறேன். பரவாயில்லை, நன்றி.',
		assistantIntro: 'பகிர்ந்ததற்கு நன்றி. நீங்கள் யோசிக்கக்கூடிய சில படிகள்:',
		assistantSteps: ['முதலில் குடும்பத்தின் மூத்தவரிடம் பேசுங்கள்.', 'தொடர்புடைய விதிமுறைகளையும் தடைகளையும் சரிபாருங்கள்.', 'நேரத்தையும் செலவையும் கவனமாகத் திட்டமிடுங்கள்.'],
		assistantQuestion: 'உங்கள் குடும்பத்தில் நான் தெரிந்துகொள்ள வேண்டிய சிறப்பு வழக்கங்கள் ஏதேனும் உள்ளதா?',
	},
};

export function phrases(language: LanguageId, _gender?: Gender): Phrases {
	return PHRASES[language];
}

export const PHRASEBOOK_LANGUAGES = Object.keys(PHRASES) as LanguageId[];

/** What the offline opener's request asks for, read from the template's ask. */
export type AskKind = 'plan' | 'wording' | 'list' | 'advice';
export type TimeUnit = 'day' | 'week' | 'month' | 'year';

/**
 * The parts the native opener is built from, the same parts as the English one: a greeting, what the
 * matter is about (the template's domain), the figures the English opener gives (durations, counts,
 * amounts: digits carry over unchanged) and what is asked for. `{topic}`, `{n}` and `{cur}` are filled in.
 */
export type OpenerParts = {
	greeting: string;
	about: string;
	topics: Readonly<Record<DomainId, string>>;
	details: string;
	/** Joins the figures and closes the details sentence. */
	join: string;
	end: string;
	units: Readonly<Record<TimeUnit, string>>;
	count: string;
	amount: string;
	asks: Readonly<Record<AskKind, string>>;
};

const OPENERS: Record<LanguageId, OpenerParts> = {
	malay: {
		greeting: 'Salam, saya perlukan sedikit nasihat.', about: 'Ini tentang {topic}.',
		topics: {culinary: 'makanan dan hidangan dalam keluarga saya', interpersonal: 'hubungan saya dengan keluarga dan orang sekeliling', ritual: 'satu majlis atau upacara keluarga', economic: 'urusan wang dan kerja', domestic: 'urusan rumah tangga dan jiran', lifestyle: 'gaya hidup dan aktiviti harian saya', health: 'kesihatan dan penjagaan dalam keluarga'},
		details: 'Butiran penting: ', join: ', ', end: '.', units: {day: '{n} hari', week: '{n} minggu', month: '{n} bulan', year: '{n} tahun'}, count: 'jumlah {n}', amount: '{n} {cur}',
		asks: {plan: 'Boleh tolong saya buat rancangan?', wording: 'Boleh bantu saya dengan ayat yang sesuai?', list: 'Boleh beri saya senarai langkah?', advice: 'Boleh beri saya nasihat?'},
	},
	indonesian: {
		greeting: 'Halo, saya butuh sedikit saran.', about: 'Ini soal {topic}.',
		topics: {culinary: 'makanan dan hidangan di keluarga saya', interpersonal: 'hubungan saya dengan keluarga dan orang sekitar', ritual: 'sebuah acara atau upacara keluarga', economic: 'urusan uang dan pekerjaan', domestic: 'urusan rumah tangga dan tetangga', lifestyle: 'gaya hidup dan kegiatan sehari-hari saya', health: 'kesehatan dan perawatan di keluarga'},
		details: 'Rinciannya: ', join: ', ', end: '.', units: {day: '{n} hari', week: '{n} minggu', month: '{n} bulan', year: '{n} tahun'}, count: 'jumlah {n}', amount: '{n} {cur}',
		asks: {plan: 'Bisa bantu saya menyusun rencana?', wording: 'Bisa bantu saya memilih kata-kata yang tepat?', list: 'Bisa berikan daftar langkahnya?', advice: 'Bisa beri saya saran?'},
	},
	filipino: {
		greeting: 'Hello po, kailangan ko po ng kaunting payo.', about: 'Tungkol po ito sa {topic}.',
		topics: {culinary: 'pagkain at handaan sa pamilya namin', interpersonal: 'pakikitungo ko sa pamilya at sa ibang tao', ritual: 'isang okasyon o seremonya ng pamilya', economic: 'pera at trabaho', domestic: 'mga gawain sa bahay at sa mga kapitbahay', lifestyle: 'pamumuhay at pang-araw-araw kong gawain', health: 'kalusugan at pag-aalaga sa pamilya'},
		details: 'Mga detalye: ', join: ', ', end: '.', units: {day: '{n} araw', week: '{n} linggo', month: '{n} buwan', year: '{n} taon'}, count: 'bilang na {n}', amount: '{n} {cur}',
		asks: {plan: 'Puwede po ba ninyo akong tulungang gumawa ng plano?', wording: 'Puwede po ba ninyo akong tulungan sa tamang sasabihin?', list: 'Puwede po bang bigyan ninyo ako ng listahan ng mga hakbang?', advice: 'Ano po ang maipapayo ninyo?'},
	},
	vietnamese: {
		greeting: 'Chào bạn, tôi cần xin một lời khuyên.', about: 'Chuyện này liên quan đến {topic}.',
		topics: {culinary: 'chuyện ăn uống trong gia đình tôi', interpersonal: 'quan hệ của tôi với gia đình và những người xung quanh', ritual: 'một dịp lễ hoặc nghi lễ trong gia đình', economic: 'chuyện tiền bạc và công việc', domestic: 'việc nhà và hàng xóm', lifestyle: 'lối sống và sinh hoạt hằng ngày của tôi', health: 'sức khỏe và việc chăm sóc trong gia đình'},
		details: 'Một vài chi tiết: ', join: ', ', end: '.', units: {day: '{n} ngày', week: '{n} tuần', month: '{n} tháng', year: '{n} năm'}, count: 'số lượng {n}', amount: '{n} {cur}',
		asks: {plan: 'Bạn có thể giúp tôi lên kế hoạch không?', wording: 'Bạn có thể giúp tôi tìm cách nói cho phù hợp không?', list: 'Bạn có thể cho tôi danh sách các bước không?', advice: 'Bạn có lời khuyên nào không?'},
	},
	mandarin: {
		greeting: '你好，我想请你给点建议。', about: '这件事和{topic}有关。',
		topics: {culinary: '家里的饮食安排', interpersonal: '我和家人及身边人的关系', ritual: '家里的一场仪式或活动', economic: '钱和工作', domestic: '家务和邻里', lifestyle: '我的生活方式和日常安排', health: '家人的健康和照顾'},
		details: '具体情况：', join: '、', end: '。', units: {day: '{n}天', week: '{n}周', month: '{n}个月', year: '{n}年'}, count: '数量{n}', amount: '{n} {cur}',
		asks: {plan: '能帮我做个计划吗？', wording: '能帮我想想怎么说比较合适吗？', list: '能给我列一个步骤清单吗？', advice: '你有什么建议吗？'},
	},
	japanese: {
		greeting: 'こんにちは、少し相談させてください。', about: '{topic}についての相談です。',
		topics: {culinary: '家族の食事', interpersonal: '家族や周りの人との付き合い', ritual: '家族の行事や儀式', economic: 'お金と仕事', domestic: '家のことやご近所付き合い', lifestyle: '暮らし方や日々の過ごし方', health: '家族の健康と介護'},
		details: '詳細：', join: '、', end: '。', units: {day: '{n}日間', week: '{n}週間', month: '{n}か月', year: '{n}年'}, count: '数は{n}', amount: '{n} {cur}',
		asks: {plan: '計画を立てるのを手伝ってもらえますか？', wording: 'どう伝えればよいか、言い方を考えてもらえますか？', list: '手順をリストにしてもらえますか？', advice: 'アドバイスをいただけますか？'},
	},
	korean: {
		greeting: '안녕하세요, 조언을 좀 구하고 싶어요.', about: '{topic}에 관한 일이에요.',
		topics: {culinary: '집안의 음식 문제', interpersonal: '가족과 주변 사람들과의 관계', ritual: '집안 행사나 의식', economic: '돈과 일', domestic: '집안일과 이웃', lifestyle: '생활 방식과 일상', health: '가족의 건강과 돌봄'},
		details: '자세한 내용: ', join: ', ', end: '.', units: {day: '{n}일', week: '{n}주', month: '{n}개월', year: '{n}년'}, count: '수량 {n}', amount: '{n} {cur}',
		asks: {plan: '계획을 세우는 것을 도와주실 수 있을까요?', wording: '어떻게 말하면 좋을지 도와주실 수 있을까요?', list: '단계별 목록을 알려 주실 수 있을까요?', advice: '조언 좀 해 주실 수 있을까요?'},
	},
	thai: {
		greeting: 'สวัสดี อยากขอคำแนะนำหน่อย', about: 'เป็นเรื่องเกี่ยวกับ{topic}',
		topics: {culinary: 'อาหารการกินในครอบครัว', interpersonal: 'ความสัมพันธ์กับครอบครัวและคนรอบตัว', ritual: 'งานพิธีหรืองานบุญของครอบครัว', economic: 'เรื่องเงินและการงาน', domestic: 'งานบ้านและเพื่อนบ้าน', lifestyle: 'การใช้ชีวิตประจำวัน', health: 'สุขภาพและการดูแลคนในครอบครัว'},
		details: 'รายละเอียด: ', join: ' ', end: '', units: {day: '{n} วัน', week: '{n} สัปดาห์', month: '{n} เดือน', year: '{n} ปี'}, count: 'จำนวน {n}', amount: '{n} {cur}',
		asks: {plan: 'ช่วยวางแผนให้หน่อยได้ไหม', wording: 'ช่วยคิดคำพูดที่เหมาะสมให้หน่อยได้ไหม', list: 'ช่วยทำรายการขั้นตอนให้หน่อยได้ไหม', advice: 'มีคำแนะนำอะไรบ้างไหม'},
	},
	tamil: {
		greeting: 'வணக்கம், எனக்குக் கொஞ்சம் ஆலோசனை வேண்டும்.', about: 'இது {topic} பற்றியது.',
		topics: {culinary: 'எங்கள் குடும்பத்தின் உணவு', interpersonal: 'குடும்பத்தினருடனும் மற்றவர்களுடனும் உள்ள உறவு', ritual: 'ஒரு குடும்ப விழா அல்லது சடங்கு', economic: 'பணமும் வேலையும்', domestic: 'வீட்டு வேலைகளும் அக்கம்பக்கத்தினரும்', lifestyle: 'என் அன்றாட வாழ்க்கை முறை', health: 'குடும்பத்தினரின் உடல்நலமும் பராமரிப்பும்'},
		details: 'விவரங்கள்: ', join: ', ', end: '.', units: {day: '{n} நாட்கள்', week: '{n} வாரங்கள்', month: '{n} மாதங்கள்', year: '{n} ஆண்டுகள்'}, count: 'எண்ணிக்கை {n}', amount: '{n} {cur}',
		asks: {plan: 'ஒரு திட்டம் போட உதவ முடியுமா?', wording: 'எப்படிச் சொல்வது என்று உதவ முடியுமா?', list: 'படிப்படியான பட்டியல் தர முடியுமா?', advice: 'ஏதாவது ஆலோசனை சொல்ல முடியுமா?'},
	},
};

export function openerParts(language: LanguageId): OpenerParts {
	return OPENERS[language];
}

/** One figure of the English opener, as the native opener states it. */
export type OpenerFigure = {n: string} & ({kind: 'time'; unit: TimeUnit} | {kind: 'count'} | {kind: 'amount'; currency: string} | {kind: 'other'});

/** The native opener from its parts; each figure's digits are written exactly as in English. */
export function nativeOpener(language: LanguageId, parts: {domain: DomainId; ask: AskKind; figures: readonly OpenerFigure[]}): string {
	const p = OPENERS[language];
	const figure = (item: OpenerFigure) => (item.kind === 'time' ? p.units[item.unit] : item.kind === 'count' ? p.count : item.kind === 'amount' ? p.amount : '{n}').replace('{n}', item.n).replace('{cur}', item.kind === 'amount' ? item.currency : '');
	const details = parts.figures.length > 0 ? `${p.details}${parts.figures.map(figure).join(p.join)}${p.end}` : '';
	const gap = p.end === '' ? ' ' : p.join === '、' || p.join === '，' ? '' : ' ';
	return [p.greeting, p.about.replace('{topic}', p.topics[parts.domain]), details, p.asks[parts.ask]].filter(Boolean).join(gap);
}
